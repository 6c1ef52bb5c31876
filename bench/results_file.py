"""The results file around the tables: sections kept from an earlier run, the summary
of targets, and the hand-written notes on the results (the first part of
``bench/NOTES.md``, above :data:`NOTES_END`) merged in below a rule."""

from __future__ import annotations

from pathlib import Path

from bench.scenarios import SCENARIOS

HERE = Path(__file__).resolve().parent


def kept_sections(path: Path, keys: list[str]) -> dict[str, list[str]]:
    """The sections of scenarios other than ``keys`` in an earlier results file, each
    headed by a line saying where it comes from; {} if there is no such file."""
    if not path.exists():
        return {}
    old = path.read_text().splitlines()
    written = next((line for line in old if line.startswith("Written by")), "Written by ?")
    load = next((line for line in old if line.startswith("- **load average")), "")
    provenance = (
        f"*Kept from the previous results file, not re-measured in this run: "
        f"{written[0].lower()}{written[1:].rstrip('.')}"
        f"{'; load average at its start ' + load.split('**: ')[-1] if load else ''}.*"
    )
    sections: dict[str, list[str]] = {}
    key = None
    for line in old:
        heading = line.startswith("## ") and line[3:4] in SCENARIOS and line[4:5] == ":"
        if heading and line[3] not in keys:
            key = line[3]
            sections[key] = [line, "", provenance]
        elif heading or line.startswith(("## ", "---", "Whole run")) or _run_load(line):
            key = None
        elif line.startswith("*Kept from the previous results file") and key is not None:
            sections[key][2] = line  # kept before: where it was measured, not this file
        elif key is not None and not (line == "" and sections[key][-1] == ""):
            sections[key].append(line)  # runs of blank lines kept as one: no growth per run
    return sections


def _run_load(line: str) -> bool:
    """The whole run's closing load line (a section's own, after each of its tables,
    says "when the table was done" and stays with the section)."""
    return line.startswith("Load average") and "when the table was done" not in line


def kept_records(key: str, section: list[str]) -> list[dict]:
    """Summary records (no times) of a kept section's table rows."""
    out, dataset = [], ""
    for line in section:
        if line.startswith("### "):
            dataset = line[4:]
        elif line.startswith("| ") and not line.startswith("| task"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out.append({"scenario": key, "dataset": dataset + " (kept)", "task": cells[0],
                        "outcome": cells[-1]})  # fmt: skip
    return out


def summary(records: list[dict]) -> list[str]:
    missed = [r for r in records if r["outcome"].startswith("missed")]
    other = [r for r in records if not r["outcome"].startswith(("met", "missed"))]
    lines = [
        "## Summary",
        "",
        f"{len(records)} rows: {len(records) - len(missed) - len(other)} met every target, "
        f"{len(missed)} missed one or more, {len(other)} not judged.",
        "",
    ]
    for r in missed + other:
        lines.append(f"- {r['scenario']}, {r['dataset']}, {r['task']}: {r['outcome']}")
    return [*lines, ""]


NOTES_MARK = "<!-- below: bench/NOTES.md, merged by bench/run.py -->"
#: The line in ``bench/NOTES.md`` that ends the notes on the results: what follows it
#: (what was tried and chosen, and the figures that decided) is not merged.
NOTES_END = "<!-- end of the notes merged into RESULTS.md -->"


def results_notes() -> str:
    """The notes on the results: ``bench/NOTES.md`` above :data:`NOTES_END` ("" if
    there is no such file)."""
    notes = HERE / "NOTES.md"
    if not notes.exists():
        return ""
    return notes.read_text().split(NOTES_END)[0].rstrip()


def with_notes(results: str) -> str:
    """``results`` (a results file, with or without notes merged) with the current
    notes on the results merged in below a rule, replacing any notes there before."""
    head = results.split(NOTES_MARK)[0].rstrip()
    head = head.removesuffix("---").rstrip()
    notes = results_notes()
    if not notes:
        return head
    return f"{head}\n\n---\n\n{NOTES_MARK}\n\n{notes}"

"""The spam filter in operation (issue 19, parts 2 and 3), against bogofilter and an
earlier nbayes, in one run; writes the "Operations" section of bench/RESULTS_spam.md.

1. Hostile mail (``tests/spam/hostile_mail.py``): seconds to tokenize each message,
   this tree and ``--before`` (a git revision, exported), each in a fresh process
   killed after ``--limit`` seconds.
2. One message per process: ``nbayes spam classify`` (this tree and ``--before``),
   ``bogofilter`` and ``python -c pass``, interleaved, one message of a held-out
   SpamAssassin set each, medians of wall clock and of CPU (user + system).
3. The daemon: ``spamc -c`` round trips against ``nbayes spam serve`` over TCP and a
   Unix socket, one spamc process each, medians; and ``--clients`` spamc loops at once.
4. Training: ``nbayes spam train`` (default workers, and ``--jobs 0``) against
   ``bogofilter -s/-n -B`` on all 6,047 SpamAssassin messages, interleaved
   ``--repeats`` times, medians of wall clock and CPU.

Byte-code files are written first and ``PYTHONDONTWRITEBYTECODE`` is left out of the
children's environment (an environment that sets it makes every process compile its
modules again: about 20 ms a classify). Run:
``.venv/bin/python bench/spam_ops.py [--before c1d68c2] [--messages 31] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import compileall
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "spam")]

from bench.revisions import export_revision  # noqa: E402
from bench.spam_data import DATA, SA_FOLDERS, write_section  # noqa: E402
from bench.spam_vs_bogofilter import ensure_bogofilter  # noqa: E402

NBAYES = str(Path(sys.executable).with_name("nbayes"))
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str], stdin: bytes = b"", env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, input=stdin, capture_output=True, env=env or ENV, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def sa_files() -> list[tuple[Path, str]]:
    return [
        (path, "spam" if label else "ham")
        for folder, label in SA_FOLDERS.items()
        for path in sorted((DATA / "spamassassin" / folder).iterdir())
        if path.name != "cmds"
    ]


# ------------------------------------------------------------ 1. hostile mail
def hostile(src: str | None, limit: float) -> dict[str, str]:
    """Seconds to tokenize each hostile message (``> limit`` where killed)."""
    from hostile_mail import HOSTILE

    code = "\n".join([
        "import sys, time",
        "sys.path.insert(0, sys.argv[2])",
        "from hostile_mail import HOSTILE",
        "from nbayes.spam.tokens import tokenize",
        "raw = HOSTILE[sys.argv[1]]()",
        "t = time.perf_counter()",
        "try: tokenize(raw)",
        "except Exception as e: print(type(e).__name__)",
        "print(f'{time.perf_counter() - t:.3f}')",
    ])  # fmt: skip
    env = dict(ENV, PYTHONPATH=src) if src else ENV
    out = {}
    for name in HOSTILE:
        try:
            result = subprocess.run(
                [sys.executable, "-c", code, name, str(ROOT / "tests" / "spam")], env=env,
                capture_output=True, text=True, timeout=limit, check=False,
            )  # fmt: skip
            lines = result.stdout.split()
            out[name] = f"{lines[-1]} s" + (f" ({lines[0]})" if len(lines) > 1 else "")
        except subprocess.TimeoutExpired:
            out[name] = f"> {limit:g} s (killed)"
    return out


# ------------------------------------------------------------ 2. one message a process
def classify_latency(tmp: Path, before: str | None, n_messages: int) -> dict[str, tuple]:
    files = sa_files()
    train, test = files[1::2], files[::2][:: max(1, len(files) // 2 // n_messages)][:n_messages]
    db = tmp / "classify.db"
    sources = [a for p, lab in train for a in (f"--{lab}", str(p))]
    command = [NBAYES, "spam", "train", "--db", str(db), *sources]
    subprocess.run(command, env=ENV, check=True, capture_output=True)
    bogo = tmp / "bogo-classify"
    bogo.mkdir()
    for flag, label in (("-s", "spam"), ("-n", "ham")):
        paths = [str(p) for p, lab in train if lab == label]
        subprocess.run(["bogofilter", "-d", str(bogo), flag, "-B", *paths], check=True)
    commands = {
        "nbayes spam classify": [NBAYES, "spam", "classify", "--db", str(db)],
        "bogofilter": ["bogofilter", "-d", str(bogo)],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    envs = {}
    if before:
        src = str(export_revision(before))
        compileall.compile_dir(src, quiet=1)
        label = f"nbayes spam classify at {before}"
        commands[label] = [sys.executable, "-c", "from nbayes.cli import main; main()",
                           "spam", "classify", "--db", str(db)]  # fmt: skip
        envs[label] = dict(ENV, PYTHONPATH=src)
    runs: dict[str, list] = {name: [] for name in commands}
    for path, _ in test:
        raw = path.read_bytes()
        for name, command in commands.items():
            runs[name].append(timed(command, raw, envs.get(name)))
    return {name: medians(r) for name, r in runs.items()}


# ------------------------------------------------------------ 3. the daemon
def daemon(tmp: Path, n_messages: int, clients: int) -> dict[str, str]:
    db, sock = tmp / "classify.db", tmp / "spamd.sock"
    server = subprocess.Popen(
        [NBAYES, "spam", "serve", "--db", str(db), "--listen", "127.0.0.1:0", "--socket",
         str(sock)], env=ENV, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines = [server.stderr.readline(), server.stderr.readline()]
    port = next(re.search(r"127\.0\.0\.1:(\d+)", line) for line in lines if "127." in line)[1]
    messages = [path.read_bytes() for path, _ in sa_files()[::2][:n_messages]]
    out = {}
    try:
        for name, where in (("TCP", ["-p", port]), ("Unix socket", ["-U", str(sock)])):
            runs = [timed(["spamc", *where, "-c"], raw) for raw in messages for _ in range(2)]
            wall, cpu = medians(runs)
            out[f"spamc -c round trip, {name}"] = (
                f"{1000 * wall:.1f} ms median (spamc's own CPU {1000 * cpu:.1f} ms)"
            )
        done = []

        def loop() -> None:
            for raw in messages:
                subprocess.run(["spamc", "-p", port, "-c"], input=raw, capture_output=True)
                done.append(1)

        threads = [threading.Thread(target=loop) for _ in range(clients)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        out[f"{clients} spamc clients at once, TCP"] = (
            f"{len(done)} messages in {elapsed:.2f} s = {len(done) / elapsed:.0f} msg/s"
        )
    finally:
        server.terminate()
        server.wait(60)
    return out


# ------------------------------------------------------------ 4. training
def training(tmp: Path, repeats: int) -> dict[str, tuple]:
    files = sa_files()
    folders = {
        lab: sorted({str(p.parent) for p, of in files if of == lab}) for lab in ("spam", "ham")
    }
    sources = [a for lab, dirs in folders.items() for d in dirs for a in (f"--{lab}", d)]
    runs: dict[str, list] = {"nbayes spam train": [], "nbayes spam train --jobs 0": [],
                             "bogofilter -s/-n -B": []}  # fmt: skip
    for _ in range(repeats):
        for name in runs:
            work = Path(tempfile.mkdtemp(dir=tmp))
            if name.startswith("nbayes"):
                extra = ["--jobs", "0"] if name.endswith("0") else []
                command = [NBAYES, "spam", "train", "--db", str(work / "t.db"), "--exclude",
                           "cmds", *extra, *sources]  # fmt: skip
                runs[name].append(timed(command))
            else:
                spam = timed(["bogofilter", "-d", str(work), "-s", "-B", *folders["spam"]])
                ham = timed(["bogofilter", "-d", str(work), "-n", "-B", *folders["ham"]])
                runs[name].append((spam[0] + ham[0], spam[1] + ham[1]))
            shutil.rmtree(work)
    return {name: medians(r) for name, r in runs.items()}, len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="c1d68c2", help="git revision to compare with")
    parser.add_argument("--messages", type=int, default=31)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--limit", type=float, default=60.0)
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "src"), quiet=1)
    version = ensure_bogofilter()
    backend = subprocess.run(["bogofilter", "-V"], capture_output=True, text=True).stdout
    backend = backend.splitlines()[1].strip().split(":")[1].strip()  # "Database: ..."
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        src = str(export_revision(args.before))
        print("hostile mail ...", flush=True)
        new, old = hostile(None, args.limit), hostile(src, args.limit)
        print("classify ...", flush=True)
        latency = classify_latency(tmp, args.before, args.messages)
        print("daemon ...", flush=True)
        served = daemon(tmp, args.messages, args.clients)
        print("training ...", flush=True)
        trained, n = training(tmp, args.repeats)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"`bench/spam_ops.py`, {when}, {version} ({backend}), "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f} "
        f"at the start and {os.getloadavg()[0]:.1f} at the end (the machine is shared).",
        "",
        f"### Hostile mail: seconds to tokenize (this tree; `{args.before}` before)",
        "",
        "| message | now | before |",
        "|---|---|---|",
        *[f"| {name} | {new[name]} | {old[name]} |" for name in new],
        "",
        f"### One message per process ({args.messages} SpamAssassin messages, medians)",
        "",
        "| command | wall ms | CPU ms |",
        "|---|---|---|",
        *[f"| {name} | {1000 * w:.1f} | {1000 * c:.1f} |" for name, (w, c) in latency.items()],
        "",
        "### The daemon (nbayes spam serve, the real spamc)",
        "",
        *[f"- {name}: {value}" for name, value in served.items()],
        "",
        f"### Training: all {n} SpamAssassin messages, medians of {args.repeats}",
        "",
        "| command | wall s | msg/s | CPU s | CPU ms/msg |",
        "|---|---|---|---|---|",
        *[
            f"| {name} | {w:.2f} | {n / w:.0f} | {c:.2f} | {1000 * c / n:.3f} |"
            for name, (w, c) in trained.items()
        ],
    ]
    write_section("spam_ops.py", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()

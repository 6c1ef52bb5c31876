"""``nbayes train``: fit a model on a table and write a safe model file."""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np

import nbayes
from nbayes.cli._columns import (
    check_finite,
    convert,
    infer_read,
    labels,
    looks_like_free_text,
)
from nbayes.cli._encoding import (
    AUTO,
    MIXED,
    READ_OF,
    TableEncoder,
    estimators,
    frame,
    mode_of,
    model_names,
)
from nbayes.cli._options import read_options, read_spec
from nbayes.cli._progress import on_terminal
from nbayes.cli._tables import CLIError, Source, release_unused
from nbayes.cli.paths import guard_outputs
from nbayes.events import event_model
from nbayes.mixed.blocks import column_kinds
from nbayes.mixed.columns import infer_kind

IGNORE = "ignore"

MODEL_HELP = (
    "The model: one of {names}. 'mixed' is NaiveBayes, one event model per column "
    "(numbers gaussian, true/false bernoulli, free text a bag of words, other text "
    "categorical, unless --column says otherwise), leaving missing values out. 'auto' "
    "picks the single model every column fits (e.g. gaussian when all are numbers) if no "
    "value is missing, else 'mixed'."
)


def parse_columns(
    specs: tuple[str, ...], columns: list[str], target: str | None = None
) -> dict[str, str]:
    """``("age=kde", ...)`` as ``{"age": "kde"}``, every name and kind checked (the
    ``target`` is no feature column: naming it is an error saying so)."""
    kinds = (*column_kinds(), IGNORE)
    out = {}
    for spec in specs:
        name, sep, kind = spec.partition("=")
        name, kind = name.strip(), kind.strip().lower()
        if not sep or not name:
            raise CLIError(f"--column {spec!r}: expected NAME=KIND")
        if name == target:
            raise CLIError(f"--column {spec!r}: {name!r} is the target, not a feature column")
        if name not in columns:
            raise CLIError(f"--column {spec!r}: no column {name!r} in the data")
        if kind not in kinds:
            raise CLIError(
                f"--column {spec!r}: unknown column kind {kind!r} (one of {', '.join(kinds)})"
            )
        out[name] = kind
    return out


def parse_params(specs: tuple[str, ...]) -> dict:
    """``("alpha=0", "priors=[0.5,0.5]")`` as ``{"alpha": 0, "priors": [0.5, 0.5]}``:
    values are JSON where they parse as JSON, else strings."""
    params = {}
    for spec in specs:
        name, sep, text = spec.partition("=")
        if not sep or not name.strip():
            raise CLIError(f"--param {spec!r}: expected NAME=VALUE")
        try:
            params[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            params[name.strip()] = text.strip()
        except RecursionError:
            raise CLIError(
                f"--param {name.strip()}: the value is nested too deeply; give a number, "
                "a string or a flat list"
            ) from None
        except ValueError:  # an integer past Python's digit limit (4,300 digits)
            raise CLIError(
                f"--param {name.strip()}: an integer of more than 4,300 digits; "
                "give it in exponent form, e.g. 1e300"
            ) from None
    return params


@dataclass
class Prepared:
    """A table read and encoded for training, and the estimator chosen for it."""

    source: Source
    n_rows: int
    n_columns: int
    target: str
    overrides: dict[str, str]
    encoder: TableEncoder
    estimator: Any
    X: Any
    y: np.ndarray
    why: str

    def describe(self, model=None) -> None:
        """Echo what was read and chosen: rows, classes, each column's kind."""
        click.echo(f"read {self.n_rows} rows, {self.n_columns} columns from {self.source.name}")
        if model is not None:
            classes, counts = model.classes_, model.class_count_.astype(np.int64)
        else:
            classes, counts = np.unique(self.y, return_counts=True)
        click.echo(
            f"target {self.target!r}: {len(classes)} classes ("
            + ", ".join(f"{label} {count}" for label, count in zip(classes, counts, strict=True))
            + ")"
        )
        kinds = dict(self.encoder.kinds)
        if model is not None:
            kinds.update(zip(self.encoder.features, model.feature_kinds(), strict=True))
        for name in self.encoder.features:
            how = "given" if name in self.overrides else f"inferred, {self.encoder.read[name]}"
            detail = ""
            if name in self.encoder.categories:
                detail = f", {len(self.encoder.categories[name])} values"
            click.echo(f"  {name}: {kinds.get(name, '?')} ({how}{detail})")
        for name, kind in self.overrides.items():
            if kind == IGNORE:
                click.echo(f"  {name}: ignore (given)")
        click.echo(f"model: {self.estimator!r}{self.why}")


def prepare(source: Source, target, model, column_specs, param_specs) -> Prepared:
    """Read the table, parse each column, choose and configure the estimator and
    encode the table (nothing is fitted)."""
    model = model.lower()
    names = model_names()
    if model not in names:
        raise CLIError(f"unknown model {model!r} (one of {', '.join(names)})")
    table = source.read(progress=on_terminal())
    if target not in table.column_names:
        raise CLIError(
            f"no target column {target!r} in {source.name}; columns are: "
            + ", ".join(table.column_names)
            + (" (--no-header: columns are numbered from 0)" if source.header is False else "")
            + _separator_hint(table.column_names, target, source)
        )
    if table.num_rows == 0:
        raise CLIError(f"{source.name}: no rows to train on")
    y, distinct = labels(table.column(target), target, source)
    if len(distinct) < 2:
        raise CLIError(
            f"the target {target!r} has a single class ({str(distinct[0])!r}): nothing to learn"
        )
    features = [c for c in table.column_names if c != target]
    overrides = parse_columns(column_specs, features, target)
    used = [name for name in features if overrides.get(name) != IGNORE]
    if not used:
        raise CLIError("no feature columns left to train on")
    cls, encoder, X, why = _choose(model, table, used, overrides, source)
    text = {name: "text" for name, kind in encoder.kinds.items() if kind == "text"}
    estimator = (
        cls(columns={**text, **{k: v for k, v in overrides.items() if k in used}} or None)
        if (encoder.mode == "table")
        else cls()
    )
    if encoder.mode == "codes" and "handle_unknown" in estimator.get_params():
        estimator.set_params(handle_unknown="ignore")  # unseen values get code K
    params = parse_params(param_specs)
    unknown = sorted(set(params) - set(estimator.get_params()))
    if unknown:
        raise CLIError(
            f"--param: {type(estimator).__name__} has no parameter(s) {', '.join(unknown)} "
            f"(it has {', '.join(estimator.get_params())})"
        )
    estimator.set_params(**params)
    return Prepared(
        source, table.num_rows, table.num_columns, target, overrides, encoder, estimator, X, y,
        why,
    )  # fmt: skip


def _separator_hint(names: list[str], target: str, source: Source) -> str:
    """A hint at ``--sep`` where the target is found inside a column name, split by
    another separator (the header of a ';' file read with ','), else ''."""
    for name in names:
        for sep in ";\t|,":
            if sep != source.sep and target in name.split(sep):
                return f" (is the separator {sep!r}? give --sep {sep!r})"
    return ""


def _choose(model: str, table, used: list[str], overrides: dict[str, str], source: Source):
    """``(estimator class, encoder, X, why)`` for ``--model`` on the columns ``used``."""
    given = {name: overrides[name] for name in used if name in overrides}
    single = {name: cls for name, cls in estimators().items() if name != MIXED}
    why = ""
    if model in (AUTO, MIXED):
        parsed = {name: _parse(table.column(name), given.get(name), name, source) for name in used}
        read = {name: how for name, (how, _) in parsed.items()}
        columns = {name: column for name, (_, column) in parsed.items()}
        encoder = TableEncoder(used, read, "table")
        text = {
            name
            for name in used
            if given.get(name) == "text"
            or (name not in given and read[name] == "text" and looks_like_free_text(columns[name]))
        }
        X = frame(columns, table.num_rows, text)
        kinds = {
            name: "text" if name in text else given.get(name) or infer_kind(X, j)
            for j, name in enumerate(used)
        }
        encoder.kinds = kinds
        if model == MIXED:
            return estimators()[MIXED], encoder, X, why
        missing = [name for name, column in columns.items() if _has_missing(column)]
        distinct = set(kinds.values())
        if missing:
            why = (
                f"  (auto: column(s) {', '.join(missing)} have missing values, which the "
                "mixed model leaves out)"
            )
            return estimators()[MIXED], encoder, X, why
        if len(distinct) != 1:
            why = "  (auto: columns of different kinds)"
            return estimators()[MIXED], encoder, X, why
        if next(iter(distinct)) not in single:
            why = f"  (auto: {next(iter(distinct))} columns, which the mixed model models)"
            return estimators()[MIXED], encoder, X, why
        model = next(iter(kinds.values()))
        why = f"  (auto: every column is {model}, none missing)"
    cls = single[model]
    clash = {n: k for n, k in given.items() if k != model}
    if clash:
        raise CLIError(
            f"--model {model} models every column as {model}, but --column gives "
            f"{', '.join(f'{n}={k}' for n, k in clash.items())}; use --model mixed"
        )
    mode = mode_of(cls)
    encoder = TableEncoder(used, {name: READ_OF[mode] for name in used}, mode)
    encoder.kinds = dict.fromkeys(used, model)
    if mode == "codes":
        encoder.learn_categories(encoder.parsed(table, source))
    return cls, encoder, encoder.transform(table, source), why


def _parse(column, kind: str | None, name: str, source: Source) -> tuple[str, object]:
    """How to parse a column of the mixed model, and the parsed column: inferred, or
    as the given kind's event model reads (true/false stays bool for a numeric kind
    such as bernoulli)."""
    inferred, parsed = infer_read(column, name, source, hint=kind is None)
    if inferred == "number":
        check_finite(parsed, column, name, source)
    if kind is None:
        return inferred, parsed
    wanted = READ_OF[event_model(kind).reads]
    if wanted == inferred or (wanted == "number" and inferred == "bool"):
        return inferred, parsed
    return wanted, convert(column, wanted, name, source)


def _has_missing(column) -> bool:
    from nbayes.cli._columns import first_missing

    return first_missing(column) is not None


def _with_text_columns(command):
    """``command`` taking ``--text COL`` as ``--column COL=text``."""

    @functools.wraps(command)
    def wrapper(*args, text_columns=(), column_specs=(), **kwargs):
        specs = (*column_specs, *(f"{name}=text" for name in text_columns))
        return command(*args, column_specs=specs, **kwargs)

    return wrapper


def table_options(command):
    """The options ``train`` and ``evaluate`` share: --target, --model, --column,
    --text, --param and the reading options."""
    options = [
        click.option(
            "--target",
            "-t",
            required=True,
            help="The column holding the class labels (its number, from 0, with --no-header).",
        ),
        click.option(
            "--model",
            "-m",
            default=AUTO,
            show_default=True,
            help=MODEL_HELP.format(names=", ".join(model_names())),
        ),
        click.option(
            "--column",
            "-c",
            "column_specs",
            multiple=True,
            metavar="NAME=KIND",
            help=f"Set a column's kind ({', '.join((*column_kinds(), IGNORE))}); repeatable.",
        ),
        click.option(
            "--text",
            "text_columns",
            multiple=True,
            metavar="NAME",
            help="Model a column as free text, a bag of words (= --column NAME=text; a "
            "string column whose values are mostly distinct and have 3 or more words is "
            "taken as text anyway); repeatable.",
        ),
        click.option(
            "--param",
            "-p",
            "param_specs",
            multiple=True,
            metavar="NAME=VALUE",
            help="Set a model parameter, e.g. alpha=0 or priors=[0.5,0.5] (JSON); repeatable.",
        ),
    ]
    command = read_options(_with_text_columns(command))
    for option in reversed(options):
        command = option(command)
    return command


def save_model(estimator, output: str, metadata: dict) -> int:
    """Write the model file (atomically; to a device such as /dev/null, copied);
    its size in bytes."""
    target = Path(output)
    if target.exists() and not target.is_file():
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "model.nbm"
            nbayes.save(estimator, path, metadata=metadata)
            with open(path, "rb") as source, open(target, "wb") as sink:
                shutil.copyfileobj(source, sink)
            return path.stat().st_size
    nbayes.save(estimator, target, metadata=metadata)
    return target.stat().st_size


@guard_outputs(outputs=["output"], inputs=["data"], parent_must_exist=True)
@click.command()
@click.argument("data")
@table_options
@click.option("--output", "-o", required=True, help="Where to write the model file.")
def train(data, target, model, column_specs, param_specs, output, **reading) -> None:
    """Fit a naive Bayes model on DATA (CSV, TSV, Parquet, JSON lines, also compressed;
    '-' = stdin)."""
    folder = Path(output).resolve().parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise CLIError(f"--output {output}: cannot write in {str(folder)!r}")
    if Path(output).is_dir():
        raise CLIError(f"--output {output}: a directory, not a file to write the model to")
    source = Source(data, read_spec(**reading))
    prepared = prepare(source, target, model, column_specs, param_specs)
    release_unused()  # the text as read is gone: give its memory back before fitting
    estimator = prepared.estimator
    with prepared.encoder.naming_bad_values(source):
        estimator.fit(prepared.X, prepared.y)
    metadata = {
        "cli": {
            "target": target,
            "encoder": prepared.encoder.to_json(),
            # as read: options found in the file (quotes read as text) included
            "read": source.spec.to_json(source.fmt),
        }
    }
    size = save_model(estimator, output, metadata)
    # the summary once the model is written: `nbayes train ... | head` kept nothing
    # when the reader went away first (SIGPIPE ends the command)
    prepared.describe(estimator)
    click.echo(f"wrote {output} ({size} bytes)")

"""No command writes over its own input (issue 25 item 4): an output path that is an
input (the same path, a symbolic link to it, a hard link to it, the file redirected to
stdin, a path inside an input folder) is refused before anything is read or written,
for every command that writes, run as users run it (a fresh process)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from conftest import nbayes

from nbayes.cli import main
from nbayes.cli.paths import (
    guard_outputs,
    refuse_missing_parents,
    refuse_overwriting_inputs,
    same_file,
)

WEATHER = "Weather,Play\n" + "".join(
    f"{w},{p}\n"
    for w, p in [("Sunny", "No"), ("Rainy", "Yes"), ("Sunny", "Yes"), ("Rainy", "No"),
                 ("Overcast", "Yes"), ("Sunny", "No"), ("Overcast", "Yes"), ("Rainy", "Yes"),
                 ("Sunny", "Yes"), ("Rainy", "No")]
)  # fmt: skip
MAIL = b"From: a@example.com\nTo: b@example.com\nSubject: hello\n\nLunch at noon?\n"


# Each way an output can name an input: the new name, made in the input's folder.
def _same(path: Path) -> Path:
    return path


def _symlink(path: Path) -> Path:
    link = path.with_name("link-to-" + path.name)
    link.symlink_to(path.name)
    return link


def _hardlink(path: Path) -> Path:
    link = path.with_name("hard-" + path.name)
    os.link(path, link)
    return link


ALIASES = {"same path": _same, "symbolic link": _symlink, "hard link": _hardlink}


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("model")
    (folder / "weather.csv").write_text(WEATHER)
    result = nbayes("train", "weather.csv", "-t", "Play", "-o", "weather.nbm", cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder / "weather.nbm"


# A writing command's case: (command line, the input at risk, the option named), built
# in a fresh folder from the alias maker; each reads a real input, so only the guard
# stands between the command and the user's file.
def _train(tmp: Path, alias, model: Path):
    data = tmp / "weather.csv"
    data.write_text(WEATHER)
    return ["train", data, "-t", "Play", "-o", alias(data)], data, "--output"


def _predict_over_data(tmp: Path, alias, model: Path):
    data = tmp / "weather.csv"
    data.write_text(WEATHER)
    return ["predict", model, data, "-o", alias(data)], data, "--output"


def _predict_over_model(tmp: Path, alias, model: Path):
    data, copy = tmp / "weather.csv", tmp / "model.nbm"
    data.write_text(WEATHER)
    copy.write_bytes(model.read_bytes())
    return ["predict", copy, data, "-o", alias(copy)], copy, "--output"


def _evaluate_report(tmp: Path, alias, model: Path):
    data = tmp / "weather.csv"
    data.write_text(WEATHER * 3)
    return ["evaluate", data, "-t", "Play", "-k", "2", "--report", alias(data)], data, "--report"


def _spam_train(tmp: Path, alias, model: Path):
    mail = tmp / "message.eml"
    mail.write_bytes(MAIL)
    return ["spam", "train", "--db", alias(mail), "--ham", mail], mail, "--db"


def _spam_unlearn(tmp: Path, alias, model: Path):
    mail = tmp / "message.eml"
    mail.write_bytes(MAIL)
    return ["spam", "unlearn", "--db", alias(mail), "--spam", mail], mail, "--db"


def _spam_serve(tmp: Path, alias, model: Path):
    database = tmp / "spam.db"
    database.write_bytes(b"not a database, but the user's file all the same\n")
    # no --listen: a guard that let it through would bind a Unix socket and wait
    return ["spam", "serve", "--db", database, "--socket", alias(database)], database, "--socket"


def _export_over_model(tmp: Path, alias, model: Path):
    copy = tmp / "model.nbm"
    copy.write_bytes(model.read_bytes())
    return ["export", copy, "-o", alias(copy)], copy, "--output"


#: Every command that writes a file, by its command line, and its cases.
WRITERS: dict[str, list[Callable]] = {
    "train": [_train],
    "predict": [_predict_over_data, _predict_over_model],
    "evaluate": [_evaluate_report],
    "export": [_export_over_model],
    "spam train": [_spam_train],
    "spam unlearn": [_spam_unlearn],
    "spam serve": [_spam_serve],
}
#: The other commands, and why none can write over an input.
READ_ONLY = {
    "demo": "writes --report, but reads only data installed with scikit-learn and nbayes",
    "explain": "prints only",
    "score": "prints only",
    "inspect": "prints only",
    "spam classify": "reads the whole message from stdin before it writes the database",
    "spam dump": "prints only",
    "spam evaluate": "prints only",
    "spam prune": "changes only its own database",
    "spam score": "prints only",
    "spam stats": "prints only",
}


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    out = {}
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            out.update(_commands(command, f"{prefix}{name} "))
        else:
            out[f"{prefix}{name}"] = command
    return out


def test_every_command_is_known_to_write_or_not():
    """A new command must say here whether it writes a file (and then be guarded)."""
    commands = _commands(main)
    assert sorted(commands) == sorted({*WRITERS, *READ_ONLY})
    for name in WRITERS:
        assert hasattr(commands[name], "guarded"), f"{name} writes but has no guard_outputs"


CASES = [
    pytest.param(case, alias, id=f"{name}-{case.__name__.strip('_')}-{how}")
    for name, cases in WRITERS.items()
    for case in cases
    for how, alias in ALIASES.items()
]


@pytest.mark.parametrize("case, alias", CASES)
def test_an_output_that_is_an_input_is_refused(case, alias, tmp_path, model_file):
    args, victim, option = case(tmp_path, alias, model_file)
    before = victim.read_bytes()
    files_before = sorted(p.name for p in tmp_path.iterdir())
    result = nbayes(*args, cwd=tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert option in lines[0] and "never writes over its input" in lines[0]
    assert victim.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == files_before  # nothing written


def test_predict_refuses_the_file_redirected_to_its_stdin(tmp_path, model_file):
    data = tmp_path / "weather.csv"
    data.write_text(WEATHER)
    with open(data, "rb") as stdin:
        result = nbayes("predict", model_file, "-", "-o", data, cwd=tmp_path, stdin=stdin)
    assert result.returncode == 2 and "redirected to stdin" in result.stderr
    assert data.read_text() == WEATHER


def test_spam_train_refuses_a_database_inside_a_mail_folder(tmp_path):
    folder = tmp_path / "ham"
    folder.mkdir()
    (folder / "1.eml").write_bytes(MAIL)
    result = nbayes("spam", "train", "--db", folder / "spam.db", "--ham", folder, cwd=tmp_path)
    assert result.returncode == 2 and "inside the folder" in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["1.eml"]


def test_other_outputs_are_written_as_before(tmp_path, model_file):
    """The guard refuses only inputs: a new file, an older output, a device."""
    data = tmp_path / "weather.csv"
    data.write_text(WEATHER)
    (tmp_path / "old.csv").write_text("an older output\n")
    for output in ("new.csv", "old.csv", os.devnull):
        result = nbayes("predict", model_file, data, "-o", output, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    assert (tmp_path / "old.csv").read_text().startswith("prediction\n")
    assert data.read_text() == WEATHER


def test_same_file_in_words(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    other = tmp_path / "other.csv"
    other.write_text("a\n1\n")  # equal contents, another file
    assert same_file(data, data) == "the same file"
    assert same_file(tmp_path / "." / "data.csv", data) == "the same file"
    assert same_file(other, data) is None
    assert same_file(tmp_path / "absent.csv", data) is None
    assert same_file(os.devnull, os.devnull) is None  # writing a device loses nothing
    assert same_file("-", data) is None and same_file(None, data) is None
    assert "through a symbolic link" in same_file(_symlink(data), data)
    assert same_file(_hardlink(data), data) == f"a hard link to {data}"
    assert same_file(tmp_path / "sub" / "x.db", tmp_path) == f"inside the folder {tmp_path}"


def test_refuse_overwriting_inputs_checks_every_path_of_repeatable_options(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for path in (a, b):
        path.write_text("x")
    refuse_overwriting_inputs({"--db": tmp_path / "c"}, {"--ham": (a, b), "--spam": None})
    with pytest.raises(click.ClickException, match=r"--db .*b is the input --ham"):
        refuse_overwriting_inputs({"--db": b}, {"--ham": (a, b), "--spam": ()})


def test_guard_outputs_names_parameters_that_exist():
    with pytest.raises(ValueError, match="no parameter 'out'"):

        @guard_outputs(outputs=["out"], inputs=["data"])
        @click.command()
        @click.argument("data")
        def command(data):
            """A command without the output it claims."""


# An output whose folder is absent is refused before any work (issue 25), for the
# table commands; spam --db creates its folder and is left alone.
def _missing(tmp: Path, model: Path, name: str) -> list:
    data = tmp / "weather.csv"
    data.write_text(WEATHER * 3)
    out = tmp / "missing" / "dir" / name
    return {
        "train": ["train", data, "-t", "Play", "-o", out],
        "predict": ["predict", model, data, "-o", out],
        "evaluate": ["evaluate", data, "-t", "Play", "-k", "2", "--report", out],
        "export": ["export", model, "-o", out],
    }


@pytest.mark.parametrize("command", ["train", "predict", "evaluate", "export"])
def test_an_output_in_a_missing_folder_is_refused_before_any_work(command, tmp_path, model_file):
    args = _missing(tmp_path, model_file, "out.file")[command]
    result = nbayes(*args, cwd=tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "does not exist" in lines[0] and str(tmp_path / "missing" / "dir") in lines[0]
    assert result.stdout == ""  # nothing predicted, nothing printed
    assert not (tmp_path / "missing").exists()


def test_an_output_under_a_file_is_refused(tmp_path, model_file):
    (tmp_path / "plain").write_text("a file, not a folder\n")
    data = tmp_path / "weather.csv"
    data.write_text(WEATHER)
    result = nbayes("predict", model_file, data, "-o", tmp_path / "plain" / "o.csv", cwd=tmp_path)
    assert result.returncode == 2 and "is not a folder" in result.stderr
    assert (tmp_path / "plain").read_text() == "a file, not a folder\n"


def test_the_table_writers_check_folders_and_spam_does_not():
    commands = _commands(main)
    for name in ("train", "predict", "evaluate", "export"):
        assert commands[name].parents_checked, name
    for name in ("spam train", "spam unlearn", "spam serve"):
        assert not commands[name].parents_checked, name


def test_refuse_missing_parents_skips_stdout_and_unset(tmp_path):
    refuse_missing_parents({"--output": None, "--report": "-", "--o": tmp_path / "x"})
    with pytest.raises(click.ClickException, match="does not exist"):
        refuse_missing_parents({"--output": (tmp_path / "x", tmp_path / "no" / "y")})

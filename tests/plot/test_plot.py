"""nbayes.plot: every figure renders to PNG and draws the right numbers; the nomogram's
points are naive Bayes' log-odds (exact for two classes, one-vs-rest otherwise)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from scipy.stats import norm

pytest.importorskip("matplotlib")
from matplotlib.figure import Figure

import nbayes
from nbayes import plot
from nbayes.inspection.nomogram import nomogram_data

PNG = b"\x89PNG\r\n\x1a\n"


def png(figure) -> bytes:
    assert isinstance(figure, Figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    data = buffer.getvalue()
    assert data.startswith(PNG) and len(data) > 1000
    return data


@pytest.fixture(scope="module")
def categorical():
    """Three features with 3, 2 and 4 categories, three classes."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, size=300)
    X = np.column_stack(
        [
            (y + rng.integers(0, 2, 300)) % 3,
            rng.integers(0, 2, 300),
            np.minimum(y + rng.integers(0, 3, 300), 3),
        ]
    )
    return X, y


@pytest.fixture(scope="module")
def binary_gaussian():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], [70, 50])
    X = rng.normal(size=(120, 3)) * [1.0, 2.0, 0.5] + np.outer(y, [1.0, -1.0, 0.3])
    return X, y


def test_nomogram_is_exact_log_odds_for_two_classes(categorical):
    X, y = categorical
    binary = y > 0
    model = nbayes.CategoricalNB(alpha=1.0).fit(X, binary)
    data = nomogram_data(model)
    assert data.target is True and data.rest == [False]
    log_proba = model.predict_log_proba(X)
    for row in X[:50]:
        total = data.log_odds({f"x{j}": int(v) for j, v in enumerate(row)})
        expected = np.diff(model.predict_log_proba(row[None, :])[0])[0]
        assert total == pytest.approx(expected, abs=1e-10)
    assert np.isfinite(log_proba).all()
    spans = [row.span for row in data.rows]
    assert spans == sorted(spans, reverse=True)


def test_nomogram_one_vs_rest_by_hand(categorical):
    X, y = categorical
    alpha = 0.5
    model = nbayes.CategoricalNB(alpha=alpha).fit(X, y)
    data = nomogram_data(model, target=2, labels={"x1": ["no", "yes"]})
    n_c = np.bincount(y, minlength=3).astype(float)
    prior = n_c / n_c.sum()
    assert data.prior_log_odds == pytest.approx(np.log(prior[2] / (prior[0] + prior[1])))
    rows = {row.feature: row for row in data.rows}
    assert rows["x1"].labels == ["no", "yes"]
    for j in range(3):
        k = X[:, j].max() + 1
        theta = np.array(
            [
                [
                    (np.sum((y == c) & (X[:, j] == v)) + alpha) / (n_c[c] + alpha * k)
                    for v in range(k)
                ]
                for c in range(3)
            ]
        )
        rest = (prior[0] * theta[0] + prior[1] * theta[1]) / (prior[0] + prior[1])
        np.testing.assert_allclose(rows[f"x{j}"].log_odds, np.log(theta[2] / rest), rtol=1e-12)
        assert rows[f"x{j}"].values == list(range(k))


def test_nomogram_gaussian_values_and_points(binary_gaussian):
    X, y = binary_gaussian
    model = nbayes.GaussianNB().fit(X, y)
    data = nomogram_data(model, feature_names=["a", "b", "c"])
    rows = {row.feature: row for row in data.rows}
    for j, name in enumerate("abc"):
        # the class mixture's mean and sd are the overall mean and (ddof=0) sd
        z = np.array([-1.645, -1.0, 0.0, 1.0, 1.645])
        values = np.array(rows[name].values)
        np.testing.assert_allclose(values, X[:, j].mean() + z * X[:, j].std(), rtol=1e-6)
        one, zero = X[y == 1, j], X[y == 0, j]
        expected = norm.logpdf(values, one.mean(), one.std()) - norm.logpdf(
            values, zero.mean(), zero.std()
        )
        np.testing.assert_allclose(rows[name].log_odds, expected, rtol=1e-6, atol=1e-8)
        assert rows[name].continuous


def test_nomogram_bad_input(categorical, binary_gaussian):
    X, y = categorical
    model = nbayes.CategoricalNB().fit(X, y)
    with pytest.raises(ValueError, match="Choose the target class"):
        nomogram_data(model)
    with pytest.raises(ValueError, match="Unknown target class 7"):
        nomogram_data(model, target=7)
    with pytest.raises(ValueError, match=r"No feature\(s\) \['zz'\]"):
        nomogram_data(model, target=0, values={"zz": [0]})
    with pytest.raises(TypeError, match="ComplementNB's factors are weights"):
        nomogram_data(nbayes.ComplementNB().fit(X, y), target=0)


def test_nomogram_figures(categorical, binary_gaussian):
    X, y = categorical
    png(plot.nomogram(nbayes.CategoricalNB().fit(X, y), target=1))
    png(plot.nomogram(nbayes.BernoulliNB().fit(X > 1, y), target=0))
    png(plot.nomogram(nbayes.MultinomialNB().fit(X, y), target=2))
    unsmoothed = nbayes.CategoricalNB(alpha=0).fit(X, y > 0)  # some points are ±inf
    png(plot.nomogram(unsmoothed))
    Xg, yg = binary_gaussian
    figure = plot.nomogram(nbayes.GaussianNB().fit(Xg, yg), max_features=2)
    png(figure)
    assert len(figure.axes[0].get_yticklabels()) == 2


def test_confusion_matrix_cells(categorical):
    X, y = categorical
    predicted = nbayes.CategoricalNB().fit(X, y).predict(X)
    figure = plot.confusion_matrix(y, predicted, labels=[0, 1, 2])
    png(figure)
    cells = [int(t.get_text()) for t in figure.axes[0].texts]
    expected = [np.sum((y == i) & (predicted == j)) for i in range(3) for j in range(3)]
    assert cells == expected
    png(plot.confusion_matrix(y, predicted, normalize="true"))


def test_reliability_diagram_ece_in_title(binary_gaussian):
    X, y = binary_gaussian
    proba = nbayes.GaussianNB().fit(X, y).predict_proba(X)
    figure = plot.reliability_diagram(y, proba, n_bins=10)
    png(figure)
    confidence, correct = proba.max(axis=1), proba.argmax(axis=1) == y
    bins = np.minimum(np.ceil(confidence * 10).astype(int) - 1, 9)
    ece = sum(
        np.sum(bins == b) / len(y) * abs(correct[bins == b].mean() - confidence[bins == b].mean())
        for b in np.unique(bins)
    )
    assert f"ECE {ece:.4f}" in figure.axes[0].get_title()


def test_roc_and_precision_recall_curves(binary_gaussian, categorical):
    from sklearn.metrics import average_precision_score, roc_auc_score

    X, y = binary_gaussian
    labels = np.where(y == 1, "pos", "neg")
    model = nbayes.GaussianNB().fit(X, labels)
    proba = model.predict_proba(X)
    roc = plot.roc_curve(labels, proba, classes=model.classes_)
    png(roc)
    (line,) = [t.get_text() for t in roc.axes[0].get_legend().get_texts()]
    assert line == f"pos (AUC {roc_auc_score(y, proba[:, 1]):.4f})"
    pr = plot.precision_recall_curve(labels, proba, classes=model.classes_)
    png(pr)
    (line,) = [t.get_text() for t in pr.axes[0].get_legend().get_texts()]
    assert line == f"pos (AP {average_precision_score(y, proba[:, 1]):.4f})"
    Xc, yc = categorical
    multi = nbayes.CategoricalNB().fit(Xc, yc)
    figure = plot.roc_curve(yc, multi.predict_proba(Xc), classes=multi.classes_)
    assert len(figure.axes[0].get_legend().get_texts()) == 3  # one vs rest, per class
    with pytest.raises(ValueError, match="shape"):
        plot.roc_curve(yc, multi.predict_proba(Xc)[:, :2], classes=multi.classes_)


def test_feature_contributions_bars(categorical):
    X, y = categorical
    model = nbayes.CategoricalNB(alpha=0).fit(X, y > 0)
    explanation = model.explain(X[0])
    figure = plot.feature_contributions(explanation)
    png(figure)
    widths = [bar.get_width() for bar in figure.axes[0].patches]
    expected = [explanation.prior_log_odds] + [c.log_ratio for c in explanation.contributions]
    finite = np.isfinite(expected)
    np.testing.assert_allclose(np.array(widths)[finite], np.array(expected)[finite])
    assert explanation.log_odds is not None
    # a zero factor makes an infinite contribution: drawn at the edge, labelled ∞
    row = X[np.flatnonzero(np.isinf(model.predict_log_proba(X)).any(axis=1))[0]]
    infinite = plot.feature_contributions(model.explain(row))
    assert any("∞" in t.get_text() for t in infinite.axes[0].texts)
    png(infinite)
    with pytest.raises(ValueError, match="one class"):
        plot.feature_contributions(nbayes.CategoricalNB().fit(X, np.zeros(len(X))).explain(X[0]))

"""Semi-supervised EM (nbayes.SemiSupervisedNB): the objective MAP-EM never
decreases, the M-step statistics, the supervised limit, weights, errors, and a small
real-data check on 20 Newsgroups."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn import naive_bayes as sk
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split

import nbayes
from tests.conftest import DATA, require_path

N_LABELLED = 12


def count_data(seed=0, n=400, n_features=30, n_classes=3, length=10):
    """Multinomial documents: (counts X, labels y) from random class word profiles."""
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.ones(n_features), size=n_classes)
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    X = np.array([rng.multinomial(length, theta[c]) for c in y])
    return X, y


def gaussian_data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 2)) + 1.5 * y[:, None]
    return X, y


def hide(y, n_labelled=N_LABELLED):
    partial = y.copy()
    partial[n_labelled:] = -1
    return partial


def data_for(estimator, seed=0):
    if isinstance(estimator, nbayes.GaussianNB):
        return gaussian_data(seed)
    X, y = count_data(seed)
    if isinstance(estimator, nbayes.CategoricalNB | nbayes.NaiveBayes):
        X = np.minimum(X, 2)
    return X, y


def fit_quietly(model, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y, **kwargs)


# Models whose M-step maximises exactly (see nbayes.meta.semi_supervised).
EXACT_MAP = [
    nbayes.MultinomialNB(),
    nbayes.MultinomialNB(alpha=0.3, prior_alpha=1.0),
    nbayes.BernoulliNB(alpha=0.5),
    nbayes.CategoricalNB(alpha=1.0, prior_alpha=2.0),
    nbayes.MultinomialNB(fit_prior=False),
    nbayes.GaussianNB(var_smoothing=0.0),
    nbayes.NaiveBayes(columns="categorical", alpha=0.5, prior_alpha=1.0),
]


@pytest.mark.parametrize("estimator", EXACT_MAP, ids=repr)
@pytest.mark.parametrize("unlabeled_weight", [1.0, 0.3])
def test_map_objective_never_decreases(estimator, unlabeled_weight):
    X, y = data_for(estimator)
    model = nbayes.SemiSupervisedNB(
        estimator, unlabeled_weight=unlabeled_weight, tol=0.0, max_iter=30
    )
    fit_quietly(model, X, hide(y))
    objective = model.log_posterior_
    assert model.n_iter_ >= 5 and objective.shape == (model.n_iter_ + 1,)
    assert np.all(np.isfinite(objective))
    steps = np.diff(objective)
    assert np.all(steps >= -1e-9 * np.abs(objective[1:])), steps
    assert objective[-1] > objective[0]


def test_maximum_likelihood_em_increases_the_observed_likelihood_itself():
    X, y = gaussian_data()
    model = fit_quietly(
        nbayes.SemiSupervisedNB(nbayes.GaussianNB(var_smoothing=0.0), tol=0.0, max_iter=30),
        X,
        hide(y),
    )
    np.testing.assert_array_equal(model.log_likelihood_, model.log_posterior_)
    assert np.all(np.diff(model.log_likelihood_) >= -1e-9 * np.abs(model.log_likelihood_[1:]))


def test_recorded_objective_matches_a_hand_computation():
    """log P(x, y) for labelled rows, lambda log sum_y P(x, y) for unlabelled rows,
    plus the Dirichlet and class-prior log densities, from the fitted parameters."""
    X, y = count_data(1)
    alpha, prior_alpha, lam = 0.5, 2.0, 0.7
    weights = np.random.default_rng(3).uniform(0.5, 2.0, size=len(y))
    model = fit_quietly(
        nbayes.SemiSupervisedNB(
            nbayes.MultinomialNB(alpha=alpha, prior_alpha=prior_alpha),
            unlabeled_weight=lam,
            max_iter=4,
            tol=0.0,
        ),
        X,
        hide(y),
        sample_weight=weights,
    )
    log_theta = model.estimator_.feature_log_prob_
    log_pi = model.estimator_.class_log_prior_
    jll = X @ log_theta.T + log_pi
    lab, unl = slice(0, N_LABELLED), slice(N_LABELLED, None)
    likelihood = weights[lab] @ jll[lab][np.arange(N_LABELLED), y[lab]]
    likelihood += lam * weights[unl] @ logsumexp(jll[unl], axis=1)
    prior = alpha * log_theta.sum() + prior_alpha * log_pi.sum()
    assert model.log_likelihood_[-1] == pytest.approx(likelihood, rel=1e-12)
    assert model.log_posterior_[-1] == pytest.approx(likelihood + prior, rel=1e-12)


def test_one_iteration_is_labelled_counts_plus_responsibility_weighted_counts():
    """After one M-step the statistics are hard counts of labelled rows plus
    lambda * P(y | x) weighted counts of unlabelled rows, P(y | x) from
    scikit-learn's MultinomialNB fitted on the labelled rows."""
    X, y = count_data(2)
    lam = 0.4
    model = fit_quietly(
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), unlabeled_weight=lam, max_iter=1),
        X,
        hide(y),
    )
    start = sk.MultinomialNB().fit(X[:N_LABELLED], y[:N_LABELLED])
    responsibilities = start.predict_proba(X[N_LABELLED:])
    one_hot = np.eye(3)[y[:N_LABELLED]]
    expected_counts = one_hot.T @ X[:N_LABELLED] + lam * responsibilities.T @ X[N_LABELLED:]
    expected_classes = one_hot.sum(0) + lam * responsibilities.sum(0)
    assert model.n_iter_ == 1
    np.testing.assert_allclose(model.estimator_.feature_count_, expected_counts, rtol=1e-12)
    np.testing.assert_allclose(model.estimator_.class_count_, expected_classes, rtol=1e-12)
    reference = sk.MultinomialNB().fit(
        np.vstack([X[:N_LABELLED], X[N_LABELLED:], X[N_LABELLED:], X[N_LABELLED:]]),
        np.concatenate([y[:N_LABELLED], np.repeat([0, 1, 2], len(y) - N_LABELLED)]),
        sample_weight=np.concatenate([np.ones(N_LABELLED), lam * responsibilities.T.ravel()]),
    )
    np.testing.assert_allclose(
        model.predict_proba(X), reference.predict_proba(X), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize(
    "estimator",
    [
        nbayes.MultinomialNB(alpha=0.5),
        nbayes.BernoulliNB(),
        nbayes.CategoricalNB(),
        nbayes.GaussianNB(),
        nbayes.ComplementNB(),
    ],
    ids=repr,
)
def test_without_unlabelled_rows_em_is_the_supervised_fit(estimator):
    X, y = data_for(estimator)
    weights = np.arange(1, len(y) + 1) % 3 + 1.0
    em = nbayes.SemiSupervisedNB(estimator).fit(X, y, sample_weight=weights)
    supervised = type(estimator)(**estimator.get_params()).fit(X, y, sample_weight=weights)
    assert em.n_iter_ == 0 and em.converged_
    assert em.log_likelihood_.shape == (1,)
    np.testing.assert_array_equal(em.classes_, supervised.classes_)
    np.testing.assert_array_equal(em.predict_proba(X), supervised.predict_proba(X))
    np.testing.assert_array_equal(em.predict(X), supervised.predict(X))


def test_integer_weights_equal_repeated_rows():
    X, y = count_data(4)
    partial = hide(y)
    weights = np.random.default_rng(0).integers(1, 4, size=len(y))
    settings = {"max_iter": 5, "tol": 0.0}
    weighted = fit_quietly(
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), **settings),
        X,
        partial,
        sample_weight=weights,
    )
    repeated = fit_quietly(
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), **settings),
        np.repeat(X, weights, axis=0),
        np.repeat(partial, weights),
    )
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9)
    np.testing.assert_allclose(weighted.log_posterior_, repeated.log_posterior_, rtol=1e-12)


def test_string_labels_in_an_object_array_and_unseen_categories():
    X, y = count_data(5)
    X = np.minimum(X, 2)
    X[N_LABELLED:, 0] = 3  # a category only unlabelled rows have
    names = np.array(["ham", "eggs", "spam"], dtype=object)[y]
    names[N_LABELLED:] = -1
    model = fit_quietly(nbayes.SemiSupervisedNB(nbayes.CategoricalNB(), max_iter=3), X, names)
    assert list(model.classes_) == ["eggs", "ham", "spam"]
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(model.predict(X)) <= {"eggs", "ham", "spam"}


def test_sparse_input():
    import scipy.sparse as sp

    X, y = count_data(6)
    dense = fit_quietly(nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), max_iter=5), X, hide(y))
    sparse = fit_quietly(
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), max_iter=5), sp.csr_matrix(X), hide(y)
    )
    np.testing.assert_allclose(dense.predict_proba(X), sparse.predict_proba(X), rtol=1e-10)


def test_bad_input_gets_clear_errors():
    X, y = count_data(7)
    with pytest.raises(ValueError, match="at least one labelled row"):
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB()).fit(X, np.full(len(y), -1))
    with pytest.raises(ValueError, match="string dtype"):
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB()).fit(X, y.astype(str))
    with pytest.raises(ValueError, match="estimator"):
        nbayes.SemiSupervisedNB(sk.MultinomialNB()).fit(X, hide(y))
    with pytest.raises(ValueError, match="unlabeled_weight"):
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), unlabeled_weight=-1).fit(X, hide(y))


def test_reports_non_convergence():
    X, y = count_data(8)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), max_iter=1, tol=0.0).fit(X, hide(y))


NEWSGROUPS = ["comp.graphics", "rec.autos", "sci.space", "talk.politics.guns"]


def newsgroups(subset):
    from sklearn.datasets._twenty_newsgroups import (
        strip_newsgroup_footer,
        strip_newsgroup_header,
        strip_newsgroup_quoting,
    )

    folder = require_path(DATA / "20newsgroups_bydate") / f"20news-bydate-{subset}"
    texts, labels = [], []
    for group in NEWSGROUPS:
        for path in sorted((folder / group).iterdir()):
            text = strip_newsgroup_header(path.read_bytes().decode("latin-1"))
            texts.append(strip_newsgroup_footer(strip_newsgroup_quoting(text)))
            labels.append(group)
    return texts, np.array(labels, dtype=object)


def test_em_beats_supervised_on_four_newsgroups():
    train_text, y_train = newsgroups("train")
    test_text, y_test = newsgroups("test")
    vectorizer = CountVectorizer(stop_words="english", min_df=2)
    X_train, X_test = vectorizer.fit_transform(train_text), vectorizer.transform(test_text)
    kept, _ = train_test_split(
        np.arange(len(y_train)), train_size=0.02, stratify=y_train, random_state=0
    )
    partial = np.full(len(y_train), -1, dtype=object)
    partial[kept] = y_train[kept]
    supervised = nbayes.MultinomialNB(alpha=0.1).fit(X_train[kept], y_train[kept])
    em = fit_quietly(nbayes.SemiSupervisedNB(nbayes.MultinomialNB(alpha=0.1)), X_train, partial)
    supervised_accuracy = np.mean(supervised.predict(X_test) == y_test)
    em_accuracy = np.mean(em.predict(X_test) == y_test)
    assert em_accuracy >= supervised_accuracy, (em_accuracy, supervised_accuracy)

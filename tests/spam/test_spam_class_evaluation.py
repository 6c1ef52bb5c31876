"""Cross-validation of the multi-class verdict (nbayes.spam.class_evaluation,
``nbayes spam evaluate --classes``): out-of-fold probabilities equal scikit-learn's
multinomial NB on each fold's counts and a store trained on the fold, they sum to 1,
the measures equal scikit-learn's, and the command as users run it, on synthetic mail
and on real newsgroup posts."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATA, nbayes_spam, require_path
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix, f1_score, log_loss, precision_score, recall_score
from spam_mail import synthetic_mail

from nbayes.spam.class_evaluation import cross_val_class_log_posterior, evaluate_classes
from nbayes.spam.classes import class_order
from nbayes.spam.evaluate import fold_indices
from nbayes.spam.score import token_matrix
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize
from nbayes.spam.verdicts import classify_classes

CLASSES = ("ham", "spam", "newsletter")


def newsletter(i: int) -> bytes:
    """A ham-like message with words of its own: a third class beside spam and ham."""
    return synthetic_mail("ham", 700 + i).replace(b"meeting", b"unsubscribe weekly digest")


def raw_mail(label: str, i: int) -> bytes:
    return newsletter(i) if label == "newsletter" else synthetic_mail(label, i)


@pytest.fixture(scope="module")
def three():
    """(raw messages, token sets, class indices into CLASSES): 20 of each class."""
    raws, labels = [], []
    for i in range(20):
        for label in CLASSES:
            raws.append(raw_mail(label, i))
            labels.append(CLASSES.index(label))
    return raws, [tokenize(raw) for raw in raws], np.array(labels)


def test_out_of_fold_posterior_equals_scikit_learn_on_each_folds_counts(three):
    """Each fold: scikit-learn's MultinomialNB on the training rows' binary token counts,
    alpha 1 over the fold's vocabulary (the tokens its training mail holds), the prior
    (N_c + 1) / (N + K); held-out tokens the fold never saw are no feature."""
    from sklearn.naive_bayes import MultinomialNB

    _, token_sets, y = three
    X, _ = token_matrix(token_sets)
    folds = fold_indices(y, 4, seed=1)
    got = cross_val_class_log_posterior(X, y, CLASSES, folds, alpha=1.0)
    for test in folds:
        train = np.setdiff1d(np.arange(len(y)), test)
        seen = np.flatnonzero(np.asarray(X[train].sum(axis=0)).ravel() > 0)
        n_c = np.bincount(y[train], minlength=3)
        model = MultinomialNB(alpha=1.0, class_prior=(n_c + 1.0) / (n_c.sum() + 3.0))
        model.fit(X[train][:, seen], y[train])
        expected = model.predict_log_proba(X[test][:, seen])
        np.testing.assert_allclose(got[test], expected, rtol=0, atol=1e-10)
    assert np.mean(got.argmax(axis=1) == y) > 0.8  # it says something


def test_out_of_fold_posterior_is_classify_classes_against_a_store_of_the_fold(three, tmp_path):
    """What ``classify --classes`` says of each held-out message against a store trained
    on the rest of the mail is the cross-validation's probability (same maths, the
    counts read from SQLite instead of memory)."""
    raws, token_sets, y = three
    X, _ = token_matrix(token_sets)
    folds = fold_indices(y, 3, seed=0)
    got = cross_val_class_log_posterior(X, y, CLASSES, folds)
    for k, test in enumerate(folds):
        train = np.setdiff1d(np.arange(len(y)), test)
        batch = [(token_sets[i], raws[i], CLASSES[y[i]]) for i in train]
        with TokenStore(tmp_path / f"fold{k}.db") as store:
            store.learn(batch)
            verdicts = classify_classes(store, [token_sets[i] for i in test])
        assert [v.verdict for v in verdicts] == [CLASSES[c] for c in got[test].argmax(axis=1)]
        from_store = np.array([[v.log_probabilities[c] for c in CLASSES] for v in verdicts])
        np.testing.assert_allclose(got[test], from_store, rtol=0, atol=1e-12)


@given(st.data())
def test_probabilities_are_finite_and_sum_to_one(data):
    """Any binary token matrix, any labels with at least two messages of each class,
    any alpha: every out-of-fold distribution is finite and sums to 1."""
    n_classes = data.draw(st.integers(2, 4))
    per_class = data.draw(st.integers(2, 5))
    n_tokens = data.draw(st.integers(1, 12))
    y = np.repeat(np.arange(n_classes), per_class)
    cells = data.draw(
        st.lists(st.booleans(), min_size=len(y) * n_tokens, max_size=len(y) * n_tokens)
    )
    X = sp.csr_matrix(np.array(cells, dtype=float).reshape(len(y), n_tokens))
    alpha = data.draw(st.floats(1e-3, 100))
    classes = tuple(f"c{k}" for k in range(n_classes))
    log_post = cross_val_class_log_posterior(X, y, classes, fold_indices(y, 2), alpha)
    proba = np.exp(log_post)
    assert np.all(np.isfinite(log_post) | (log_post == -np.inf)) and np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_a_fold_without_a_class_is_refused():
    X = sp.csr_matrix(np.eye(4))
    with pytest.raises(ValueError, match="leaves no message of b"):
        cross_val_class_log_posterior(X, np.array([0, 0, 0, 1]), "ab", [np.array([3])])


def test_measures_equal_scikit_learns():
    rng = np.random.default_rng(7)
    y = np.repeat(np.arange(3), 30)
    proba = rng.dirichlet(np.ones(3), size=len(y))
    proba[np.arange(40), y[:40]] += 1.0  # most right, some wrong
    proba /= proba.sum(axis=1, keepdims=True)
    result = evaluate_classes(y, np.log(proba), CLASSES)
    verdict = proba.argmax(axis=1)
    assert result.accuracy == pytest.approx(np.mean(verdict == y), abs=1e-15)
    assert result.macro_f1 == pytest.approx(f1_score(y, verdict, average="macro"), abs=1e-12)
    assert result.log_loss == pytest.approx(log_loss(y, proba, labels=[0, 1, 2]), abs=1e-12)
    np.testing.assert_allclose(result.precision, precision_score(y, verdict, average=None))
    np.testing.assert_allclose(result.recall, recall_score(y, verdict, average=None))
    assert np.array_equal(result.confusion, confusion_matrix(y, verdict))
    assert result.support == (30, 30, 30)
    report = result.as_dict()
    assert report["confusion"]["ham"]["spam"] == result.confusion[0][1]
    assert report["per_class"]["newsletter"]["recall"] == result.recall[2]


def test_log_loss_is_not_clipped():
    """A sure and wrong verdict costs what it costs: -ln P(true class), however large."""
    log_post = np.array([[0.0, -800.0], [-800.0, 0.0]])
    assert evaluate_classes(np.array([1, 1]), log_post, "ab").log_loss == pytest.approx(400.0)


# ---------------------------------------------------------------- the command
@pytest.fixture(scope="module")
def mail_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("mail")
    for label in CLASSES:
        (root / label).mkdir()
        for i in range(15):
            (root / label / f"{i:02d}.eml").write_bytes(raw_mail(label, i))
    return root


def test_cli_evaluates_three_classes(mail_dirs):
    sources = ["--spam", mail_dirs / "spam", "--ham", mail_dirs / "ham",
               "--class", "newsletter", mail_dirs / "newsletter", "--folds", 3]  # fmt: skip
    done = nbayes_spam("evaluate", *sources, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["classes"] == list(CLASSES) and report["folds"] == 3
    assert report["messages"] == dict.fromkeys(CLASSES, 15)
    confusion = np.array([[report["confusion"][t][v] for v in CLASSES] for t in CLASSES])
    assert confusion.sum(axis=1).tolist() == [15, 15, 15]
    assert report["accuracy"] == pytest.approx(np.trace(confusion) / 45, abs=1e-15)
    assert report["accuracy"] >= 0.8 and report["log_loss"] >= 0

    text = nbayes_spam("evaluate", *sources)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.decode().splitlines()
    assert lines[0] == "messages\t15 ham, 15 spam, 15 newsletter, 3 folds"
    assert f"accuracy\t{report['accuracy']:.4f}" in lines
    assert "true\\verdict\tham\tspam\tnewsletter" in lines
    cut = lines.index("confusion (rows: true class; columns: verdict)")
    rows = {line.split("\t")[0]: line.split("\t")[1:] for line in lines[:cut]}
    matrix = {line.split("\t")[0]: line.split("\t")[1:] for line in lines[cut:]}
    assert [int(n) for n in matrix["newsletter"]] == confusion[2].tolist()
    spam = report["per_class"]["spam"]
    assert rows["spam"] == [f"{spam[m]:.4f}" for m in ("precision", "recall", "f1")] + ["15"]


@pytest.mark.parametrize(
    ("extra", "status", "message"),
    [
        (["--class", "Newsletter", "@newsletter"], 2, "class name 'Newsletter'"),
        (["--class", "unsure", "@newsletter"], 2, "class name 'unsure'"),
        (["--classes", "--spam", "@spam"], 1, "at least two classes (found only spam)"),
        (["--class", "newsletter", "@newsletter", "--spam", "@spam", "--folds", 20], 1,
         "need at least 20 messages of every class for 20 folds"),
        (["--classes", "--spam", "@spam", "--ham", "@ham", "--incremental"], 2,
         "--incremental is the two-class TREC run"),
        (["--classes", "--spam", "@spam", "--ham", "@ham", "--mode", "unless-sure"], 2,
         "--classes learns every message"),
    ],
)  # fmt: skip
def test_cli_bad_multi_class_input_is_one_clear_line(mail_dirs, extra, status, message):
    args = [mail_dirs / a[1:] if str(a).startswith("@") else a for a in extra]
    done = nbayes_spam("evaluate", *args)
    assert done.returncode == status
    errors = [line for line in done.stderr.decode().splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and message in errors[0], done.stderr
    assert "Traceback" not in done.stderr.decode()


def test_an_index_with_a_bad_class_is_refused(tmp_path):
    index = tmp_path / "index"
    index.write_text("spam a\nham b\nnews:x c\n")
    done = nbayes_spam("evaluate", "--classes", "--index", index)
    assert done.returncode == 1 and b"index:3: class name 'news:x'" in done.stderr


# ---------------------------------------------------------------- real mail
def test_three_newsgroups_through_an_index(tmp_path):
    """Three groups of 20 Newsgroups, 30 posts each, read in place through a TREC-style
    index of 'CLASS PATH' lines; 3 folds. The command's measures are those computed here
    from the same posts and folds."""
    root = require_path(DATA / "20newsgroups_bydate") / "20news-bydate-train"
    groups = ("comp.graphics", "rec.autos", "sci.space")
    paths, labels = [], []
    for group in groups:
        for path in sorted((root / group).iterdir())[:30]:
            paths.append(path)
            labels.append(group.replace(".", "-"))
    order = np.random.default_rng(0).permutation(len(paths))  # arrival order: mixed
    index = tmp_path / "index"
    index.write_text("".join(f"{labels[i]} {paths[i]}\n" for i in order))
    done = nbayes_spam("evaluate", "--classes", "--index", index, "--folds", 3, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)

    classes = class_order(labels)
    token_sets = [tokenize(paths[i].read_bytes()) for i in order]
    y = np.array([classes.index(labels[i]) for i in order])
    X, _ = token_matrix(token_sets)
    log_post = cross_val_class_log_posterior(X, y, classes, fold_indices(y, 3, 0))
    expected = evaluate_classes(y, log_post, classes)
    assert report["classes"] == list(classes)
    assert report["confusion"] == expected.as_dict()["confusion"]
    assert report["accuracy"] == expected.accuracy
    assert report["log_loss"] == pytest.approx(expected.log_loss, rel=1e-9)
    np.testing.assert_allclose(np.exp(log_post).sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # measured 0.889 (chance 1/3); four whole groups, 10 folds: 0.979 (see the guide)
    assert report["accuracy"] >= 0.8, report["accuracy"]

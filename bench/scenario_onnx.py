"""Scenario L: serving exported models from onnxruntime.

For GaussianNB and MultinomialNB: onnxruntime running the graph ``nbayes.to_onnx``
writes (float64) against onnxruntime running skl2onnx's graph of scikit-learn's same
model (float64 inputs, ``zipmap=False``), and against nbayes's own ``predict_proba``
in Python (the "floor" column, here the in-process baseline, not a lower bound). For
NaiveBayes on UCI adult (strings and missing values: skl2onnx converts no mixed
model) against nbayes's own ``predict_proba`` only; so for ``make_text_classifier()``
(its defaults) on 20 Newsgroups posts, fed 16 posts a call as the ONNX guide advises.
Each model has a batch case and a
one-row case (latency: :data:`ROW_CALLS` calls of ``session.run`` on one row, timed
together, so that one timing is not a single 0.1 ms call); the graphs' file sizes are
noted under each table. The sessions use onnxruntime's defaults (all graph optimisations, its
own thread pool). Peak memory is not compared: onnxruntime's allocations are not
traced by tracemalloc.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bench.registry import Case, Dataset, register

#: Single-row calls per timing of a one-row case.
ROW_CALLS = 200


def _rows(call):
    """``call`` made :data:`ROW_CALLS` times."""

    def calls():
        for _ in range(ROW_CALLS):
            call()

    return calls


def _missing() -> str | None:
    try:
        import onnxruntime  # noqa: F401
        import skl2onnx  # noqa: F401
    except ImportError as error:
        return f"needs {error.name} (the test extra)"
    return None


def _session(graph):
    import onnxruntime as ort

    return ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])


def _sklearn_graph(model, n_features: int):
    from skl2onnx import to_onnx
    from skl2onnx.common.data_types import DoubleTensorType

    options = {id(model): {"zipmap": False}}
    return to_onnx(model, initial_types=[("X", DoubleTensorType([None, n_features]))],
                   options=options, target_opset=18)  # fmt: skip


def _array_cases(name, ours, theirs, X) -> tuple[list[Case], list[str]]:
    """Batch and one-row cases of the same fitted model (nbayes ``ours``, scikit-learn
    ``theirs``), and the notes: file sizes and the largest probability difference."""
    import nbayes

    graph, rival = nbayes.to_onnx(ours), _sklearn_graph(theirs, X.shape[1])
    mine, other = _session(graph), _session(rival)
    row = X[:1].copy()
    served = mine.run(None, {"X": X})[1]
    difference = float(np.abs(served - ours.predict_proba(X)).max())
    rival_difference = float(np.abs(other.run(None, {"X": X})[1] - served).max())
    cases = [
        Case(f"{name} batch of {X.shape[0]:,} rows", lambda: mine.run(None, {"X": X}),
             lambda: other.run(None, {"X": X}), lambda: ours.predict_proba(X),
             "nbayes predict_proba (Python)", 1.0, None, compare_memory=False, same_result=False),
        Case(f"{name} one row, {ROW_CALLS} calls", _rows(lambda: mine.run(None, {"X": row})),
             _rows(lambda: other.run(None, {"X": row})), _rows(lambda: ours.predict_proba(row)),
             "nbayes predict_proba (Python)", 1.0, None, compare_memory=False, same_result=False),
    ]  # fmt: skip
    notes = [
        f"{name} graph file: nbayes {len(graph.SerializeToString()):,} bytes, skl2onnx "
        f"{len(rival.SerializeToString()):,} bytes (float64).",
        f"{name}: largest |P(onnxruntime, nbayes graph) - P(nbayes)| {difference:.1e}; "
        f"against the skl2onnx graph {rival_difference:.1e}.",
    ]
    return cases, notes


@register("L", "ONNX: onnxruntime serving exported models against skl2onnx's graphs",
          missing=_missing)  # fmt: skip
def onnx_serving(quick: bool) -> Iterator[Dataset]:
    from sklearn import naive_bayes as sk

    import nbayes

    rng = np.random.default_rng(0)
    n, d, k = (2_000, 50, 10) if quick else (100_000, 50, 10)
    y = rng.integers(0, k, n)
    X = rng.normal(y[:, None] * 0.1, 1.0, size=(n, d))
    cases, notes = _array_cases("GaussianNB", nbayes.GaussianNB().fit(X, y),
                                sk.GaussianNB().fit(X, y), X)  # fmt: skip
    yield Dataset(f"GaussianNB {n:,}x{d}, {k} classes", X.sum, cases,
                  rival="skl2onnx graph", notes=notes)  # fmt: skip

    n, d, k = (2_000, 1_000, 20) if quick else (20_000, 1_000, 20)
    y = rng.integers(0, k, n)
    counts = rng.poisson(0.05 + 0.02 * (np.arange(d)[None, :] % k == y[:, None]), size=(n, d))
    counts = counts.astype(np.float64)
    cases, notes = _array_cases("MultinomialNB", nbayes.MultinomialNB().fit(counts, y),
                                sk.MultinomialNB().fit(counts, y), counts)  # fmt: skip
    yield Dataset(f"MultinomialNB dense counts {n:,}x{d:,}, {k} classes", counts.sum, cases,
                  rival="skl2onnx graph", notes=notes)  # fmt: skip

    yield from _mixed(quick)
    yield from _text(quick)


def _mixed(quick: bool) -> Iterator[Dataset]:
    import nbayes
    from bench import uci
    from nbayes.export import onnx_feeds

    if not (uci.DATA / "uci_adult").is_dir():
        yield Dataset("UCI adult", None, [], notes=[f"Not run: not found under {uci.DATA}."])
        return
    rows = (slice(0, 2_000), slice(0, 1_000)) if quick else (slice(None), slice(None))
    X, y = uci.split_xy(uci.adult("data").iloc[rows[0]])
    X_test, _ = uci.split_xy(uci.adult("test").iloc[rows[1]])
    model = nbayes.NaiveBayes().fit(X, y.to_numpy())
    graph = nbayes.to_onnx(model)
    session = _session(graph)
    feeds, one = onnx_feeds(graph, X_test), onnx_feeds(graph, X_test.iloc[:1])
    row = X_test.iloc[:1]
    difference = float(np.abs(session.run(None, feeds)[1] - model.predict_proba(X_test)).max())
    yield Dataset(
        f"NaiveBayes on UCI adult: {X.shape[1]} columns (6 numeric, 8 string, ? missing), "
        f"{len(X_test):,} test rows",
        None,
        [
            Case(f"batch of {len(X_test):,} rows", lambda: session.run(None, feeds), None,
                 lambda: model.predict_proba(X_test), "nbayes predict_proba (Python)",
                 compare_memory=False, same_result=False),
            Case(f"one row, {ROW_CALLS} calls", _rows(lambda: session.run(None, one)), None,
                 _rows(lambda: model.predict_proba(row)), "nbayes predict_proba (Python)",
                 compare_memory=False, same_result=False),
        ],
        rival="skl2onnx graph",
        notes=[
            "skl2onnx converts no mixed model: no rival here.",
            f"Graph file: {len(graph.SerializeToString()):,} bytes; one input per column "
            "(float with NaN, or string with '' for a missing value).",
            f"Largest |P(onnxruntime) - P(nbayes)|: {difference:.1e}.",
        ],
    )


#: Posts per onnxruntime call of the text case (the Tokenizer pads rows to the longest).
TEXT_BATCH = 16
#: Single-post calls per timing of the text one-row case (each ~10 ms).
TEXT_ROW_CALLS = 20


def _text(quick: bool) -> Iterator[Dataset]:
    import time

    import nbayes
    from bench import uci
    from nbayes.text import make_text_classifier

    root = uci.DATA / "20newsgroups_bydate"
    if not root.is_dir():
        yield Dataset("20 Newsgroups", None, [], notes=[f"Not run: not found under {uci.DATA}."])
        return
    step = 16 if quick else 4

    def posts(split: str):
        files = sorted((root / f"20news-bydate-{split}").glob("*/*"))[::step]
        return [f.read_bytes().decode("latin-1") for f in files], [f.parent.name for f in files]

    (train, y), (test, _) = posts("train"), posts("test")
    test = test[:256]
    model = make_text_classifier().fit(train, np.array(y))
    started = time.perf_counter()
    graph = nbayes.to_onnx(model)
    export_s = time.perf_counter() - started
    session = _session(graph)
    batches = [np.array(test[k : k + TEXT_BATCH], dtype=object)
               for k in range(0, len(test), TEXT_BATCH)]  # fmt: skip
    one = np.array(test[:1], dtype=object)

    def served():
        return np.concatenate([session.run(None, {"X": b})[1] for b in batches])

    def rows():
        for _ in range(TEXT_ROW_CALLS):
            session.run(None, {"X": one})

    def own_rows():
        for _ in range(TEXT_ROW_CALLS):
            model.predict_proba(test[:1])

    difference = float(np.abs(served() - model.predict_proba(test)).max())
    size = len(graph.SerializeToString())
    yield Dataset(
        f"make_text_classifier() on 20 Newsgroups: {len(train):,} training posts, "
        f"{len(model[-1].classes_)} classes, {model[-1].n_features_in_:,} features",
        None,
        [
            Case(f"batch of {len(test)} posts, {TEXT_BATCH} a call", served, None,
                 lambda: model.predict_proba(test), "nbayes predict_proba (Python)",
                 compare_memory=False, same_result=False),
            Case(f"one post, {TEXT_ROW_CALLS} calls", rows, None, own_rows,
                 "nbayes predict_proba (Python)", compare_memory=False, same_result=False),
        ],
        rival="skl2onnx graph",
        notes=[
            "skl2onnx converts no nbayes text pipeline (rich tokens, posts): no rival here.",
            f"Graph file: {size:,} bytes (opset 20; the vocabulary's terms and the "
            f"weights); export took {export_s:.1f} s.",
            f"Largest |P(onnxruntime) - P(nbayes)|: {difference:.1e}.",
        ],
    )

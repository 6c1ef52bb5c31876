"""Scoring a message from its tokens' counts: Robinson, Fisher, Graham, naive Bayes.

Notation, per token ``w``: ``b(w) = n_spam(w) / N_spam`` and ``g(w) = n_ham(w) / N_ham``
(the fraction of trained spam / ham messages containing ``w``),
``p(w) = b / (b + g)`` and ``n = n_spam(w) + n_ham(w)``. Robinson's corrected
probability is ``f(w) = (s·x + n·p(w)) / (s + n)`` with strength ``s`` and
background ``x`` (an unseen token scores ``x``). Tokens with
``|f(w) - 0.5| < min_dev`` are ignored (the minimum-deviation filter).

Combining the ``k`` remaining tokens of a message into its spamminess in [0, 1]:

- ``fisher`` (default): Robinson's chi-square method, ``H = Q(-2 Σ ln f, 2k)``,
  ``S = Q(-2 Σ ln(1 - f), 2k)`` with ``Q`` the chi-square survival function,
  score ``(1 + H - S) / 2``;
- ``graham``: the ``top`` tokens farthest from 0.5,
  ``Π f / (Π f + Π (1 - f))``;
- ``naive-bayes``: the true posterior ``P(spam | x)`` of multinomial naive Bayes on
  the message's token set (binary features; Metsis et al., 2006), computed by
  :mod:`nbayes.events.multinomial` and :mod:`nbayes.core.posterior` with Laplace
  smoothing ``alpha`` over the store's whole vocabulary.

A score ``>= spam_cutoff`` is Spam, ``<= ham_cutoff`` Ham, anything between Unsure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nbayes.spam._numpy import np  # imported on first use (nbayes.spam._numpy)
from nbayes.spam.store import TokenStore, Totals

if TYPE_CHECKING:
    import scipy.sparse as sp
    from numpy.typing import NDArray

METHODS = ("fisher", "graham", "naive-bayes")


@dataclass(frozen=True)
class ScoreSettings:
    """Scoring parameters.

    The defaults were chosen by 10-fold cross-validation (``bench/spam_tune.py``):
    grid over method x s x x x min_dev, ranked by 1-ROCA relative to the best on
    SpamAssassin plus the same on the SMS Spam Collection. Fisher, s = 0.1,
    x = 0.52, min_dev = 0.45 ranked first (SpamAssassin 1-ROCA 0.0238 %, 97.6 %
    of spam caught at 0.1 % FPR; SMS 1.39 %); cutoffs 0.2 / 0.9 left 1 of 4150
    ham as Spam and 18 Unsure. ``naive-bayes`` is exact but over-confident
    (SpamAssassin 1-ROCA 0.53 %).
    """

    method: str = "fisher"
    strength: float = 0.1
    background: float = 0.52
    min_dev: float = 0.45
    ham_cutoff: float = 0.2
    spam_cutoff: float = 0.9
    top: int = 15
    alpha: float = 1.0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if not self.strength > 0:
            raise ValueError(f"strength must be > 0, got {self.strength}")
        if not 0 < self.background < 1:
            raise ValueError(f"background must be in (0, 1), got {self.background}")
        if not 0 <= self.min_dev < 0.5:
            raise ValueError(f"min_dev must be in [0, 0.5), got {self.min_dev}")
        if not 0 <= self.ham_cutoff <= self.spam_cutoff <= 1:
            raise ValueError(
                f"need 0 <= ham_cutoff <= spam_cutoff <= 1, got {self.ham_cutoff}, "
                f"{self.spam_cutoff}"
            )
        if self.top < 1 or self.alpha <= 0:
            raise ValueError("top must be >= 1 and alpha > 0")

    def verdict(self, score: float) -> str:
        """``Spam``, ``Ham`` or ``Unsure``."""
        if score >= self.spam_cutoff:
            return "Spam"
        if score <= self.ham_cutoff:
            return "Ham"
        return "Unsure"


def token_index(
    token_sets: Sequence[AbstractSet[str]],
) -> tuple[NDArray[np.int64], NDArray[np.int64], list[str]]:
    """The messages' tokens as CSR index arrays: ``(indices, indptr, columns)``, where
    message ``i``'s tokens are ``columns[j]`` for ``j`` in
    ``indices[indptr[i]:indptr[i + 1]]``; ``columns`` lists the distinct tokens."""
    columns: dict[str, int] = {}
    indices = [columns.setdefault(t, len(columns)) for tokens in token_sets for t in tokens]
    indptr = np.zeros(len(token_sets) + 1, dtype=np.int64)
    np.cumsum([len(tokens) for tokens in token_sets], out=indptr[1:])
    return np.asarray(indices, dtype=np.int64), indptr, list(columns)


def token_matrix(token_sets: Sequence[AbstractSet[str]]) -> tuple[sp.csr_matrix, list[str]]:
    """Binary CSR matrix (n_messages, n_distinct_tokens) and its column tokens."""
    indices, indptr, columns = token_index(token_sets)
    return _binary_csr(indices, indptr, len(columns)), columns


def _binary_csr(indices: NDArray, indptr: NDArray, n_columns: int) -> sp.csr_matrix:
    """The binary CSR matrix of :func:`token_index`'s arrays."""
    import scipy.sparse as sp  # here: scoring itself needs no SciPy (see chi2_sf_even)

    shape = (len(indptr) - 1, n_columns)
    return sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=shape)


def robinson_f(counts: NDArray, totals: Totals, settings: ScoreSettings) -> NDArray[np.float64]:
    """``f(w)`` for counts of shape (n_tokens, 2) (ham, spam) → (n_tokens,)."""
    n_ham, n_spam = (max(m, 1) for m in totals.messages)
    g = counts[:, 0] / n_ham
    b = counts[:, 1] / n_spam
    n = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, b / (b + g), settings.background)
    s, x = settings.strength, settings.background
    return (s * x + n * p) / (s + n)


def score_matrix(
    X: sp.csr_matrix, counts: NDArray, totals: Totals, settings: ScoreSettings
) -> NDArray[np.float64]:
    """Spamminess of each row of binary X (n_messages, n_tokens) whose columns have
    the store counts ``counts`` (n_tokens, 2); shape (n_messages,)."""
    if settings.method == "naive-bayes":
        return naive_bayes_score(X, counts, totals, settings.alpha)
    return _combine(X.indices, X.indptr, X.data, counts, totals, settings)


def _combine(
    indices: NDArray, indptr: NDArray, data: NDArray | None, counts: NDArray,
    totals: Totals, settings: ScoreSettings,
) -> NDArray[np.float64]:  # fmt: skip
    """Fisher or Graham combining of the messages in CSR arrays (``data`` None: all 1)."""
    f = robinson_f(counts, totals, settings)
    kept = (np.abs(f - 0.5) >= settings.min_dev)[indices]
    indices = indices[kept]
    data = None if data is None else data[kept]
    kept_before = np.concatenate([[0], np.cumsum(kept)])
    indptr = kept_before[indptr]
    k = np.diff(indptr)
    if settings.method == "graham":
        return _graham(indices, indptr, f, settings.top)
    ln_f = _row_sums(np.log(f)[indices], data, indptr)
    ln_1f = _row_sums(np.log1p(-f)[indices], data, indptr)
    h = chi2_sf_even(-2 * ln_f, k)
    s = chi2_sf_even(-2 * ln_1f, k)
    return np.where(k > 0, (1 + h - s) / 2, 0.5)


def _row_sums(values: NDArray, data: NDArray | None, indptr: NDArray) -> NDArray[np.float64]:
    """Sum of ``data * values`` over each row's entries (0 for an empty row)."""
    if data is not None:
        values = data * values
    out = np.zeros(len(indptr) - 1)
    starts = indptr[:-1]
    filled = indptr[1:] > starts
    if values.size:  # reduceat over non-empty rows: each runs to the next one's start
        out[filled] = np.add.reduceat(values, starts[filled])
    return out


def chi2_sf_even(x: NDArray, k: NDArray) -> NDArray[np.float64]:
    """The chi-square survival function ``Q(x; 2k)`` at even degrees of freedom ``2k``.

    There it is a Poisson distribution function (Robinson's ``chi2Q``):
    ``Q(x; 2k) = P(Poisson(m) <= k - 1) = sum_{i<k} exp(-m) m^i / i!`` with ``m = x / 2``,
    summed here in log space (each row's terms ``-m + i ln m - ln i!``, log-sum-exp),
    so ``exp(-m)`` never underflows; 1 where ``x = 0`` or ``k = 0``. Agrees with
    ``scipy.special.chdtrc(2k, x)`` to about 1e-13 (tested); written out because
    importing ``scipy.special`` took a third of the start-up of ``nbayes spam
    classify``, which a mail server runs once per message.

    x, k : arrays of shape (n,), x >= 0 and integer k >= 0. Returns shape (n,).
    """
    x, k = np.asarray(x, dtype=np.float64), np.asarray(k, dtype=np.int64)
    out = np.ones(x.shape)
    rows = np.flatnonzero((k > 0) & (x > 0))
    if rows.size == 0:
        return out
    m, k = x[rows] / 2, k[rows]
    starts = np.concatenate([[0], np.cumsum(k)[:-1]])
    i = np.arange(k.sum()) - np.repeat(starts, k)  # 0 .. k-1 in each row
    log_factorial = np.array([math.lgamma(j + 1.0) for j in range(int(k.max()))])
    terms = i * np.repeat(np.log(m), k) - log_factorial[i] - np.repeat(m, k)
    top = np.maximum.reduceat(terms, starts)
    total = np.add.reduceat(np.exp(terms - np.repeat(top, k)), starts)
    out[rows] = np.minimum(np.exp(top) * total, 1.0)
    return out


def _graham(indices: NDArray, indptr: NDArray, f: NDArray, top: int) -> NDArray[np.float64]:
    """``Π f / (Π f + Π (1 - f)) = 1 / (1 + exp(-Σ logit f))`` over each message's ``top``
    tokens farthest from 0.5 (messages as CSR ``indices``/``indptr`` into ``f``)."""
    logit = np.log(f) - np.log1p(-f)
    out = np.full(len(indptr) - 1, 0.5)
    for i in range(len(indptr) - 1):
        row = logit[indices[indptr[i] : indptr[i + 1]]]
        if row.size > top:
            row = row[np.argpartition(-np.abs(row), top - 1)[:top]]
        if row.size:
            out[i] = math.exp(-np.logaddexp(0.0, -row.sum()))
    return out


def naive_bayes_score(
    X: sp.csr_matrix, counts: NDArray, totals: Totals, alpha: float
) -> NDArray[np.float64]:
    """``P(spam | x)`` of multinomial NB over the store's vocabulary of size ``V``.

    Only the message tokens' columns are materialised; one extra column holds the
    rest of the vocabulary, with count ``N_c. - Σ n_c(w)`` and pseudocount
    ``alpha (V - U)``, so :class:`nbayes.events.multinomial.Multinomial` normalises by
    exactly ``N_c. + V alpha``. Tokens the store has never seen are not features.
    """
    # Imported here: they bring SciPy and scikit-learn, which the default methods do not need.
    import scipy.sparse as sp

    from nbayes.core import posterior
    from nbayes.events.counts import CountStats
    from nbayes.events.multinomial import Multinomial

    known = counts.sum(axis=1) > 0
    counts = counts[known]
    X = sp.csr_matrix(X[:, np.flatnonzero(known)])
    n_known = counts.shape[0]
    rest = np.asarray(totals.tokens) - counts.sum(axis=0)
    feature_count = np.column_stack([counts.T, rest]).astype(np.float64)
    pseudo = np.full(n_known + 1, alpha)
    pseudo[-1] = alpha * max(totals.vocabulary - n_known, 0)
    stats = CountStats(np.asarray(totals.messages, dtype=np.float64), feature_count)
    model = Multinomial(alpha=pseudo)
    params = model.estimate(stats)
    X = sp.hstack([X, sp.csr_matrix((X.shape[0], 1))], format="csr")
    log_prior = posterior.class_log_prior(stats.class_count, pseudocount=alpha)
    jll = posterior.joint_log_likelihood(model.log_likelihood(params, X), log_prior)
    return np.exp(posterior.log_posterior(jll, log_prior)[:, 1])


def score_tokens(
    store: TokenStore, token_sets: Sequence[AbstractSet[str]], settings: ScoreSettings
) -> NDArray[np.float64]:
    """Score messages given as token sets against the store, in one read snapshot."""
    if not token_sets:
        return np.empty(0)
    indices, indptr, columns = token_index(token_sets)
    with store.snapshot():
        counts = store.lookup(columns)
        totals = store.totals()
    if settings.method == "naive-bayes":
        X = _binary_csr(indices, indptr, len(columns))
        return naive_bayes_score(X, counts, totals, settings.alpha)
    return _combine(indices, indptr, None, counts, totals, settings)

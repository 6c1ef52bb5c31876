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

A filter that has learnt fewer than ``maturity`` messages of a class stands by only
part of what it sees: the Fisher and Graham log-odds ``ln(score / (1 - score))`` are
multiplied by ``t = min(1, min(N_ham, N_spam) / maturity)`` (:func:`maturity_factor`),
so its scores are pulled toward 0.5 and it answers Unsure more. Without that, every
token it has not yet seen in the rarer class counts against that class, and a new
filter scores mail hundreds of nats sure on that alone (the ham among the first
spam of a corpus ranked above nearly every spam; ``bench/RESULTS.md``).

A score ``>= spam_cutoff`` is Spam, ``<= ham_cutoff`` Ham, anything between Unsure.
"""

from __future__ import annotations

import math
import sys
from collections import namedtuple
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from nbayes.spam._numpy import np  # imported on first use (nbayes.spam._numpy)
from nbayes.spam._records import Replaceable
from nbayes.spam.store import Totals

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    import scipy.sparse as sp
    from numpy.typing import NDArray

    from nbayes.spam.store_protocol import Store

METHODS = ("fisher", "graham", "naive-bayes")
#: The largest Laplace ``alpha``: ``alpha * V`` stays finite for any vocabulary size ``V``
#: an int64 counts (up to 2**63), and so does every pseudocount sum of naive Bayes.
MAX_ALPHA = sys.float_info.max / 2.0**64


_FLOAT_FIELDS = ("strength", "background", "min_dev", "ham_cutoff", "spam_cutoff", "alpha",
                 "maturity")  # fmt: skip


def _is_integer(value: object) -> bool:
    """Whether ``value`` is an integer (NumPy's too) and not a bool: the test of
    ``numbers.Integral``, whose module the one-shot classify need not import.

    >>> _is_integer(15), _is_integer(True), _is_integer(15.0)
    (True, False, False)
    """
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        return False
    return getattr(value, "shape", ()) == ()  # NumPy integers, not arrays of them


_SETTING_NAMES = ("method", "strength", "background", "min_dev", "ham_cutoff", "spam_cutoff", "top",
                  "alpha", "maturity")  # fmt: skip


class ScoreSettings(Replaceable, namedtuple("ScoreSettings", _SETTING_NAMES)):
    """Scoring parameters.

    Defaults: Fisher (Robinson's chi-square), s = 0.1, x = 0.52, min_dev = 0.375,
    cutoffs 0.2 / 0.9, maturity 50 messages of each class (:func:`maturity_factor`).
    Chosen (tables in ``bench/RESULTS.md``, figures from the retired lab scripts) with the
    tokenizer's defaults for 1-ROCA at or below bogofilter's on every corpus at hand,
    in folds and incrementally: SpamAssassin (and its later mail, and rewritten as
    preprocessed and as body-only mail), the SMS Spam Collection, and public corpora
    read in place. min_dev 0.45, chosen before on
    SpamAssassin and SMS alone, kept only tokens seen in one class: best on
    SpamAssassin, from 1.5 to 3 times bogofilter's 1-ROCA on mail without headers.
    ``naive-bayes`` is exact but over-confident (SpamAssassin 1-ROCA 0.53 %). maturity
    50 took 1-ROCA in arrival order to or below bogofilter's on all 15 corpora (14
    without; CSDMC2010 0.133 to 0.113, bogofilter 0.119), changed nothing in folds, and
    passed 15 of 15 anywhere from 30 to 200; at 20 CSDMC2010 failed again.
    """

    __slots__ = ()
    method: str
    strength: float
    background: float
    min_dev: float
    ham_cutoff: float
    spam_cutoff: float
    top: int
    alpha: float
    maturity: float

    def __new__(
        cls, method: str = "fisher", strength: float = 0.1, background: float = 0.52,
        min_dev: float = 0.375, ham_cutoff: float = 0.2, spam_cutoff: float = 0.9,
        top: int = 15, alpha: float = 1.0, maturity: float = 50.0,
    ) -> ScoreSettings:  # fmt: skip
        values = {
            "method": method, "strength": strength, "background": background,
            "min_dev": min_dev, "ham_cutoff": ham_cutoff, "spam_cutoff": spam_cutoff,
            "top": top, "alpha": alpha, "maturity": maturity,
        }  # fmt: skip
        for name in _FLOAT_FIELDS:  # an int (10**30) as the float it stands for
            try:
                values[name] = float(values[name])
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"{name} must be a number, got {values[name]!r}") from None
        self = super().__new__(cls, **values)
        self._check()
        return self

    def _check(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if not 0 < self.strength < math.inf:
            raise ValueError(f"strength must be a finite number > 0, got {self.strength}")
        if not 0 < self.background < 1:
            raise ValueError(f"background must be in (0, 1), got {self.background}")
        smallest = sys.float_info.min  # below, s·x or s·(1 - x) loses its precision
        if min(self.strength * self.background, self.strength * (1 - self.background)) < smallest:
            raise ValueError(
                f"strength x background and strength x (1 - background) must be at least "
                f"{smallest:.4g} (else f(w) of a rare token rounds to 0 or 1 and scores are "
                f"NaN), got strength {self.strength}, background {self.background}"
            )
        if not 0 <= self.min_dev < 0.5:
            raise ValueError(f"min_dev must be in [0, 0.5), got {self.min_dev}")
        if not 0 <= self.ham_cutoff <= self.spam_cutoff <= 1:
            raise ValueError(
                f"need 0 <= ham_cutoff <= spam_cutoff <= 1, got {self.ham_cutoff}, "
                f"{self.spam_cutoff}"
            )
        if not 0 <= self.maturity < math.inf:
            raise ValueError(f"maturity must be a finite number >= 0, got {self.maturity}")
        if not _is_integer(self.top) or self.top < 1:
            raise ValueError(f"top must be an integer >= 1, got {self.top!r}")
        if not 0 < self.alpha <= MAX_ALPHA:
            raise ValueError(
                f"alpha must be in (0, {MAX_ALPHA:.3g}] (alpha times any vocabulary size "
                f"stays finite), got {self.alpha}"
            )

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


def maturity_factor(totals: Totals, settings: ScoreSettings) -> float:
    """The share of its log-odds a filter that has learnt ``totals.messages`` (ham, spam)
    stands by: ``min(1, min(N_ham, N_spam) / maturity)``; 1 where ``maturity`` is 0, and
    for ``naive-bayes``, whose posterior is left as it is.

    >>> maturity_factor(Totals((10, 200), (0, 0), None), ScoreSettings())
    0.2
    """
    if settings.maturity == 0 or settings.method == "naive-bayes":
        return 1.0
    return min(1.0, min(totals.messages) / settings.maturity)


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


def robinson_log_f(
    counts: NDArray, totals: Totals, settings: ScoreSettings
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(ln f(w), ln(1 - f(w)))`` for counts of shape (n_tokens, 2) → two (n_tokens,).

    ``1 - f = (s (1 - x) + n (1 - p)) / (s + n)`` with ``1 - p = g / (b + g)``, taken from
    its own numerator rather than as ``1 - f``: where ``s (1 - x)`` is small against ``n``
    (a small strength, a background near 1), ``f`` rounds to 1 and ``ln(1 - f)`` to
    ``-inf``, which made the score NaN; both numerators are at least ``s·min(x, 1 - x)``,
    which :class:`ScoreSettings` keeps a normal float, so both logarithms are finite."""
    n_ham, n_spam = (max(m, 1) for m in totals.messages)
    g = counts[:, 0] / n_ham
    b = counts[:, 1] / n_spam
    n = counts.sum(axis=1)
    s, x = settings.strength, settings.background
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, b / (b + g), x)
        q = np.where(n > 0, g / (b + g), 1 - x)
        ln_total = np.log(s + n)
        return np.log(s * x + n * p) - ln_total, np.log(s * (1 - x) + n * q) - ln_total


def score_matrix(
    X: sp.csr_matrix, counts: NDArray, totals: Totals, settings: ScoreSettings,
    *, log_odds: bool = False,
) -> NDArray[np.float64]:  # fmt: skip
    """Spamminess of each row of binary X (n_messages, n_tokens) whose columns have
    the store counts ``counts`` (n_tokens, 2); shape (n_messages,). With ``log_odds``,
    ``ln(score / (1 - score))``, exact where the score rounds to 0 or 1 (for ranking:
    see :func:`fisher_log_odds`)."""
    if settings.method == "naive-bayes":
        return naive_bayes_score(X, counts, totals, settings.alpha, log_odds=log_odds)
    return _combine(X.indices, X.indptr, X.data, counts, totals, settings, log_odds)


def _combine(
    indices: NDArray, indptr: NDArray, data: NDArray | None, counts: NDArray,
    totals: Totals, settings: ScoreSettings, log_odds: bool = False, temper: bool = True,
) -> NDArray[np.float64]:  # fmt: skip
    """Fisher or Graham combining of the messages in CSR arrays (``data`` None: all 1);
    with ``log_odds``, ``ln(score / (1 - score))`` instead of the score. With ``temper``
    (the default) the log-odds are scaled by :func:`maturity_factor` (where it is below 1;
    above, the scores are the untouched ones)."""
    t = maturity_factor(totals, settings) if temper else 1.0
    if t < 1.0:
        raw = _combine(indices, indptr, data, counts, totals, settings, True, temper=False)
        return t * raw if log_odds else np.exp(-np.logaddexp(0.0, -t * raw))
    f = robinson_f(counts, totals, settings)
    log_f, log_1f = robinson_log_f(counts, totals, settings)
    kept = (np.abs(f - 0.5) >= settings.min_dev)[indices]
    indices = indices[kept]
    data = None if data is None else data[kept]
    kept_before = np.concatenate([[0], np.cumsum(kept)])
    indptr = kept_before[indptr]
    k = np.diff(indptr)
    if settings.method == "graham":
        return _graham(indices, indptr, log_f - log_1f, settings.top, log_odds)
    ln_f = _row_sums(log_f[indices], data, indptr)
    ln_1f = _row_sums(log_1f[indices], data, indptr)
    if log_odds:
        return fisher_log_odds(ln_f, ln_1f, k)
    h = chi2_sf_even(-2 * ln_f, k)
    s = chi2_sf_even(-2 * ln_1f, k)
    return np.where(k > 0, (1 + h - s) / 2, 0.5)


def fisher_log_odds(ln_f: NDArray, ln_1f: NDArray, k: NDArray) -> NDArray[np.float64]:
    """``ln(score / (1 - score))`` of Fisher's score ``(1 + H - S) / 2``, without rounding
    the score to 0 or 1 first.

    With ``H = Q(-2 Σ ln f, 2k)``, ``S = Q(-2 Σ ln(1 - f), 2k)`` and their complements
    ``C_H = 1 - H``, ``C_S = 1 - S`` (chi-square distribution functions), the score is
    ``(H + C_S) / 2`` and one minus it ``(S + C_H) / 2``: each a sum of two
    non-negative terms, whose logarithms :func:`chi2_log_sf_cdf_even` gives to full
    relative precision. The score itself reaches 0 or 1 in floating point once ``H``
    or ``S`` falls below about 1e-16, so that ever more messages tie there; the
    log-odds keep ranking them as the scores' exact values would (what a ROC curve
    needs). Shapes (n,); 0 where ``k = 0``.
    """
    ln_h, ln_ch = chi2_log_sf_cdf_even(-2 * ln_f, k)
    ln_s, ln_cs = chi2_log_sf_cdf_even(-2 * ln_1f, k)
    return np.where(k > 0, np.logaddexp(ln_h, ln_cs) - np.logaddexp(ln_s, ln_ch), 0.0)


def fisher_log_odds_one(counts: NDArray, totals: Totals, settings: ScoreSettings) -> float:
    """The untempered Fisher log-odds of one message whose distinct tokens have the store
    counts ``counts`` (n_tokens, 2): bit for bit what :func:`_combine` gives for it
    (``log_odds=True, temper=False``), with a fifth of its NumPy calls, for training's
    ``unless-sure`` rule, which scores messages one at a time (3-5x faster a message).
    Sums are taken by ``np.add.reduceat``, as there (``ndarray.sum`` rounds otherwise)."""
    f = robinson_f(counts, totals, settings)
    kept = np.abs(f - 0.5) >= settings.min_dev
    k = int(kept.sum())
    if k == 0:
        return 0.0
    log_f, log_1f = robinson_log_f(counts, totals, settings)
    ln_h, ln_ch = _chi2_log_sf_cdf_one(-2 * float(_row_sum(log_f[kept])), k)
    ln_s, ln_cs = _chi2_log_sf_cdf_one(-2 * float(_row_sum(log_1f[kept])), k)
    return float(np.logaddexp(ln_h, ln_cs) - np.logaddexp(ln_s, ln_ch))


def _chi2_log_sf_cdf_one(x: float, k: int) -> tuple[float, float]:
    """:func:`chi2_log_sf_cdf_even` of one ``x`` and ``k > 0``, computed the same way."""
    if not x > 0:
        return 0.0, -math.inf
    m = x / 2
    terms = np.arange(k) * np.log(m) - _log_factorials(k) - m
    top = terms.max()
    ln_sf = min(float(top + np.log(_row_sum(np.exp(terms - top)))), 0.0)
    if ln_sf <= math.log(_CDF_BY_SUBTRACTION):
        return ln_sf, float(np.log1p(-np.exp(ln_sf)))
    return ln_sf, _log_poisson_upper_tail(m, k)


def _row_sum(values: NDArray) -> float:
    """The sum of ``values`` as :func:`_row_sums` takes it (``np.add.reduceat``)."""
    return np.add.reduceat(values, [0])[0]


#: Where ``Q`` is at most this, ``ln(1 - Q)`` is precise enough computed from ``Q``.
_CDF_BY_SUBTRACTION = 0.999
#: Terms of the upper Poisson tail summed at most (each under 1e-17 of the sum after).
_MAX_TAIL_TERMS = 1 << 14


def chi2_log_sf_cdf_even(x: NDArray, k: NDArray) -> tuple[NDArray, NDArray]:
    """``(ln Q(x; 2k), ln(1 - Q(x; 2k)))``, both to full relative precision, however small.

    ``Q(x; 2k) = P(Poisson(m) <= k - 1)`` and ``1 - Q = P(Poisson(m) >= k)`` with
    ``m = x / 2`` (see :func:`chi2_sf_even`). The survival function is a log-sum-exp
    of its ``k`` terms; the distribution function is ``log1p(-Q)`` where ``Q`` is not
    near 1, else the upper tail ``sum_{i >= k} exp(-m + i ln m - ln i!)`` summed in log
    space until the terms are below 1e-17 of the sum (the ratio of successive terms,
    ``m / (i + 1)``, falls below 1 there, since ``m < k``). ``k = 0``: ``(0, -inf)``.
    x, k : arrays of shape (n,), x >= 0 and integer k >= 0.
    """
    x, k = np.asarray(x, dtype=np.float64), np.asarray(k, dtype=np.int64)
    ln_q = np.zeros(x.shape)
    ln_c = np.full(x.shape, -np.inf)
    rows = np.flatnonzero((k > 0) & (x > 0))
    if rows.size == 0:
        return ln_q, ln_c
    m, kk = x[rows] / 2, k[rows]
    top, total = _sf_terms(m, kk)
    ln_sf = np.minimum(top + np.log(total), 0.0)
    ln_q[rows] = ln_sf
    by_subtraction = ln_sf <= math.log(_CDF_BY_SUBTRACTION)
    ln_c[rows[by_subtraction]] = np.log1p(-np.exp(ln_sf[by_subtraction]))
    for j in np.flatnonzero(~by_subtraction):
        ln_c[rows[j]] = _log_poisson_upper_tail(m[j], int(kk[j]))
    return ln_q, ln_c


def _log_poisson_upper_tail(m: float, k: int) -> float:
    """``ln P(Poisson(m) >= k)`` for ``m < k``, summed from its largest term, ``i = k``."""
    n = 64
    while True:
        i = np.arange(k, k + n)
        terms = i * math.log(m) - _log_factorials(k + n)[k:] - m
        if terms[-1] < terms[0] - 40 or n >= _MAX_TAIL_TERMS:  # e^-40 < 1e-17
            top = terms[0]
            return float(top + math.log(np.exp(terms - top).sum()))
        n *= 4


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
    top, total = _sf_terms(x[rows] / 2, k[rows])
    out[rows] = np.minimum(np.exp(top) * total, 1.0)
    return out


def _sf_terms(m: NDArray, k: NDArray) -> tuple[NDArray, NDArray]:
    """``P(Poisson(m) <= k - 1) = exp(top) * total`` row by row (m > 0, k > 0): ``top``
    the largest of the row's terms ``-m + i ln m - ln i!`` (i < k), ``total`` the sum
    of their exponentials relative to it."""
    starts = np.concatenate([[0], np.cumsum(k)[:-1]])
    i = np.arange(k.sum()) - np.repeat(starts, k)  # 0 .. k-1 in each row
    log_factorial = _log_factorials(int(k.max()))
    terms = i * np.repeat(np.log(m), k) - log_factorial[i] - np.repeat(m, k)
    top = np.maximum.reduceat(terms, starts)
    return top, np.add.reduceat(np.exp(terms - np.repeat(top, k)), starts)


_LOG_FACTORIALS: list = [None]  # the table, made on first use (NumPy imported lazily)


def _log_factorials(n: int) -> NDArray[np.float64]:
    """``ln j!`` for j = 0 .. n - 1 (a table kept between calls, grown as needed)."""
    table = _LOG_FACTORIALS[0]
    if table is None or len(table) < n:
        size = max(n, 2 * (0 if table is None else len(table)), 64)
        table = _LOG_FACTORIALS[0] = np.array([math.lgamma(j + 1.0) for j in range(size)])
    return table[:n]


def _graham(
    indices: NDArray, indptr: NDArray, logit: NDArray, top: int, log_odds: bool = False
) -> NDArray[np.float64]:
    """``Π f / (Π f + Π (1 - f)) = 1 / (1 + exp(-Σ logit f))`` over each message's ``top``
    tokens farthest from 0.5 (messages as CSR ``indices``/``indptr`` into the tokens'
    ``logit = ln f - ln(1 - f)``); with ``log_odds``, ``Σ logit f``."""
    out = np.full(len(indptr) - 1, 0.0 if log_odds else 0.5)
    for i in range(len(indptr) - 1):
        row = logit[indices[indptr[i] : indptr[i + 1]]]
        if row.size > top:
            row = row[np.argpartition(-np.abs(row), top - 1)[:top]]
        if row.size:
            total = row.sum()
            out[i] = total if log_odds else math.exp(-np.logaddexp(0.0, -total))
    return out


def naive_bayes_score(
    X: sp.csr_matrix, counts: NDArray, totals: Totals, alpha: float, *, log_odds: bool = False
) -> NDArray[np.float64]:
    """``P(spam | x)`` of multinomial NB over the store's vocabulary of size ``V``
    (:func:`naive_bayes_log_posterior` of the two classes ham, spam); with ``log_odds``,
    ``ln P(spam | x) - ln P(ham | x)``."""
    log_post = naive_bayes_log_posterior(
        X, counts, totals.messages, totals.tokens, totals.vocabulary, alpha
    )
    if log_odds:
        return log_post[:, 1] - log_post[:, 0]
    return np.exp(log_post[:, 1])


def naive_bayes_log_posterior(
    X: sp.csr_matrix, counts: NDArray, messages: Sequence[int], tokens: Sequence[int],
    vocabulary: int, alpha: float,
) -> NDArray[np.float64]:  # fmt: skip
    """``ln P(c | x)`` of multinomial NB on binary X (n_messages, n_tokens) whose columns
    have the store counts ``counts`` (n_tokens, K): shape (n_messages, K), for the ``K``
    classes with ``messages`` (K,) messages and token-set size sums ``tokens`` (K,),
    over a vocabulary of ``vocabulary`` tokens.

    Only the message tokens' columns are materialised; one extra column holds the
    rest of the vocabulary, with count ``N_c. - sum n_c(w)`` and pseudocount
    ``alpha (V - U)``, so :class:`nbayes.events.multinomial.Multinomial` normalises by
    exactly ``N_c. + V alpha``; the prior is ``(N_c + alpha) / (N + K alpha)``, the
    normalisation a log-sum-exp (:mod:`nbayes.core.posterior`). Tokens the store has
    never seen are not features.
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
    rest = np.asarray(tokens) - counts.sum(axis=0)
    feature_count = np.column_stack([counts.T, rest]).astype(np.float64)
    pseudo = np.full(n_known + 1, alpha)
    pseudo[-1] = alpha * max(vocabulary - n_known, 0)
    stats = CountStats(np.asarray(messages, dtype=np.float64), feature_count)
    model = Multinomial(alpha=pseudo)
    params = model.estimate(stats)
    X = sp.hstack([X, sp.csr_matrix((X.shape[0], 1))], format="csr")
    log_prior = posterior.class_log_prior(stats.class_count, pseudocount=alpha)
    jll = posterior.joint_log_likelihood(model.log_likelihood(params, X), log_prior)
    return posterior.log_posterior(jll, log_prior)


def score_counts(
    counts: NDArray, totals: Totals, settings: ScoreSettings, *, log_odds: bool = False,
    temper: bool = True,
) -> float:  # fmt: skip
    """The spamminess of one message whose distinct tokens have the store counts
    ``counts`` (n_tokens, 2: ham, spam); with ``log_odds`` as :func:`score_matrix`;
    ``temper=False``: not scaled by :func:`maturity_factor`."""
    if settings.method == "fisher" and log_odds:  # tempered as by _combine (1.0 * x is x)
        t = maturity_factor(totals, settings) if temper else 1.0
        return t * fisher_log_odds_one(counts, totals, settings)
    k = counts.shape[0]
    indices, indptr = np.arange(k), np.array([0, k])
    if settings.method == "naive-bayes":
        X = _binary_csr(indices, indptr, k)
        return float(naive_bayes_score(X, counts, totals, settings.alpha, log_odds=log_odds)[0])
    return float(_combine(indices, indptr, None, counts, totals, settings, log_odds, temper)[0])


def score_tokens(
    store: Store, token_sets: Sequence[AbstractSet[str]], settings: ScoreSettings
) -> NDArray[np.float64]:
    """Score messages given as token sets against the store, in one read snapshot."""
    if not token_sets:
        return np.empty(0)
    indices, indptr, columns = token_index(token_sets)
    # the vocabulary's size only where naive Bayes smooths over it: on SQLite a count of
    # the whole token table (7-25 ms for 400,000 tokens), once a batch
    naive_bayes = settings.method == "naive-bayes"
    counts, totals = store.read_lookup(columns, vocabulary=naive_bayes)
    if naive_bayes:
        X = _binary_csr(indices, indptr, len(columns))
        return naive_bayes_score(X, counts, totals, settings.alpha)
    return _combine(indices, indptr, None, counts, totals, settings)

"""One message's Fisher score in plain Python, for the one-shot ``classify``.

The same maths as :func:`nbayes.spam.score.score_tokens` with ``method="fisher"`` (see
:mod:`nbayes.spam.score` for the notation), written without NumPy, whose import alone
took about 70 ms of a ``classify`` process that a mail server starts per message; a
message's few hundred tokens cost microseconds either way. Per token ``w`` of the
message, with counts ``n_ham(w)``, ``n_spam(w)`` (0 where the store has never seen it):

    f(w) = (s x + n p(w)) / (s + n),   p(w) = b / (b + g)   (x where n = 0)

and over the ``k`` tokens with ``|f(w) - 0.5| >= min_dev``:

    H = Q(-2 Σ ln f, 2k),   S = Q(-2 Σ ln(1 - f), 2k),   score = (1 + H - S) / 2

(0.5 where ``k = 0``), ``Q`` summed in log space as in
:func:`nbayes.spam.score.chi2_sf_even`. The sums run over the tokens in the set's
order, one after another; NumPy sums them pairwise, so the two scores agree to about
1e-12 (tested), not to the last bit. A young store's scores, scaled in log-odds
(:func:`nbayes.spam.score.maturity_factor`), are NumPy's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from nbayes.spam.score import ScoreSettings, maturity_factor
from nbayes.spam.store import Totals

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store


def fisher_score(
    tokens: Iterable[str],
    counts: dict[str, tuple[int, int]],
    totals: Totals,
    settings: ScoreSettings,
) -> float:
    """The Fisher (Robinson chi-square) score of a message's ``tokens``, from the
    store ``counts`` (``{token: (ham, spam)}``, absent tokens unseen) and ``totals``.
    A store short of :attr:`~nbayes.spam.score.ScoreSettings.maturity` messages of a
    class is scored by NumPy, whose log-odds its scaling needs."""
    if maturity_factor(totals, settings) < 1.0:
        from nbayes.spam._numpy import np
        from nbayes.spam.score import score_counts

        rows = [counts.get(token, (0, 0)) for token in tokens]
        return score_counts(np.array(rows, dtype=np.int64).reshape(-1, 2), totals, settings)
    n_ham, n_spam = (max(m, 1) for m in totals.messages)
    s, x, min_dev = settings.strength, settings.background, settings.min_dev
    sum_ln_f = sum_ln_1f = 0.0
    k = 0
    for token in tokens:
        ham, spam = counts.get(token, (0, 0))
        n = ham + spam
        if n:
            b, g = spam / n_spam, ham / n_ham
            p, q = b / (b + g), g / (b + g)
        else:
            p, q = x, 1 - x
        f = (s * x + n * p) / (s + n)
        if abs(f - 0.5) >= min_dev:  # 1 - f from its own numerator (robinson_log_f)
            ln_total = math.log(s + n)
            sum_ln_f += math.log(s * x + n * p) - ln_total
            sum_ln_1f += math.log(s * (1 - x) + n * q) - ln_total
            k += 1
    if k == 0:
        return 0.5
    h = chi2_sf_even(-2 * sum_ln_f, k)
    s_ = chi2_sf_even(-2 * sum_ln_1f, k)
    return (1 + h - s_) / 2


def clues(
    tokens: Iterable[str],
    counts: dict[str, tuple[int, int]],
    totals: Totals,
    settings: ScoreSettings,
    n: int = 10,
) -> list[tuple[str, float]]:
    """The ``n`` tokens whose ``f(w)`` is farthest from 0.5 among those the score used
    (``|f(w) - 0.5| >= min_dev``), with their ``f(w)``: the message's strongest clues."""
    n_ham, n_spam = (max(m, 1) for m in totals.messages)
    s, x = settings.strength, settings.background
    found = []
    for token in tokens:
        ham, spam = counts.get(token, (0, 0))
        n_token = ham + spam
        p = (spam / n_spam) / (spam / n_spam + ham / n_ham) if n_token else x
        f = (s * x + n_token * p) / (s + n_token)
        if abs(f - 0.5) >= settings.min_dev:
            found.append((token, f))
    found.sort(key=lambda clue: (-abs(clue[1] - 0.5), clue[0]))
    return found[:n]


def chi2_sf_even(x: float, k: int) -> float:
    """``Q(x; 2k) = sum_{i<k} exp(-m) m^i / i!`` with ``m = x / 2``, in log space (1 where
    ``x = 0`` or ``k = 0``); see :func:`nbayes.spam.score.chi2_sf_even`."""
    m = x / 2
    if k <= 0 or m <= 0:
        return 1.0
    log_m = math.log(m)
    terms = [i * log_m - math.lgamma(i + 1.0) - m for i in range(k)]
    top = max(terms)
    return min(math.exp(top) * sum(math.exp(t - top) for t in terms), 1.0)


def score_message(store: Store, tokens: AbstractSet[str], settings: ScoreSettings) -> float:
    """The score of one message's token set against ``store``: :func:`fisher_score` for
    the Fisher method, else :func:`nbayes.spam.score.score_tokens` (NumPy)."""
    if settings.method != "fisher":
        from nbayes.spam.score import score_tokens

        return float(score_tokens(store, [tokens], settings)[0])
    counts, totals = store.read_counts(tokens, vocabulary=False)
    return fisher_score(tokens, counts, totals, settings)

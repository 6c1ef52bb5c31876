"""Which messages training learns: the rule of each training mode, written once for the
store-backed training (:mod:`nbayes.spam.train`) and the in-memory evaluation
(:mod:`nbayes.spam.evaluate`), so what is measured is what ``nbayes spam train`` does.

Modes (``MODES``; the first is the default):

- ``unless-sure``: score each message against the counts as they stand (the messages
  learnt before it included) and learn it unless the filter already classifies it
  right with log-odds beyond ``certainty`` nats: a spam with
  ``ln(score / (1 - score)) > certainty``, a ham with ``< -certainty``
  (:func:`is_sure`). The default ``certainty`` of 100 nats (odds of e^100) skips
  only messages whose verdict no single token could turn;
- ``everything``: learn every message (TREC's "full training");
- ``on-error``: train on or near error (TONE): learn a message only if its verdict is
  wrong or Unsure, or its score is within ``margin`` of the cutoff on its side
  (:func:`needs_learning`);
- ``until-mature``: ``on-error`` passes until one learns nothing (bogominitrain).

Why ``unless-sure`` is the default (``bench/RESULTS.md``, 15 corpora, each in
10 folds and incrementally in arrival order, and SpamAssassin learnt on its earlier
mail and tested on its later): with word pairs, a message scored by Fisher's method is
often hundreds of nats sure, and learning such messages again and again makes their
tokens ever more certain, so the rare ham that shares them (a newsletter among spam)
is then scored surer than nearly all spam. Against learning everything, skipping them
lowered 1-ROCA on all 15 corpora incrementally, on 12 of 15 in folds (the three
SpamAssassin variants rose by 4-11 %) and on the later mail (1.49 to 1.21 %); the
effect is flat from 50 to 200 nats. A filter that has learnt one class only is sure
of everything, so nothing is skipped until each class has a message
(:meth:`RunningCounts.sure`). The rule judges the untempered log-odds: a young filter's
scores are pulled toward 0.5 (:func:`~nbayes.spam.score.maturity_factor`), what it
learns is not (tempered, the rule would learn nearly every early spam of a corpus that
opens with spam, and SpamAssassin's incremental 1-ROCA rose from 0.19 to 0.22).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes.spam.score import ScoreSettings, maturity_factor, score_counts
from nbayes.spam.store import Totals

#: Training modes, the default first (see the module docstring).
MODES = ("unless-sure", "everything", "on-error", "until-mature")
#: Log-odds (nats) beyond which a rightly classified message is not learnt (``unless-sure``).
DEFAULT_CERTAINTY = 100.0


def is_sure(log_odds: float, is_spam: bool, certainty: float) -> bool:
    """Whether a message of log-odds ``log_odds`` is classified right with more than
    ``certainty`` nats to spare: the messages ``unless-sure`` training skips."""
    return (log_odds if is_spam else -log_odds) > certainty


def needs_learning(score: float, is_spam: bool, settings: ScoreSettings, margin: float) -> bool:
    """Train on or near error: whether a message scored ``score`` is to be learnt, that is
    whether its verdict is wrong or Unsure, or its score is within ``margin`` of the
    cutoff on its side (spam below ``spam_cutoff + margin``, ham above
    ``ham_cutoff - margin``)."""
    if is_spam:
        return score < min(settings.spam_cutoff + margin, 1.0)
    return score > max(settings.ham_cutoff - margin, 0.0)


def check_certainty(certainty: float) -> float:
    if not certainty >= 0 or certainty == float("inf"):
        raise ValueError(f"certainty must be a finite number of nats >= 0, got {certainty}")
    return float(certainty)


class RunningCounts:
    """Token counts and totals updated message by message as training learns them: what
    a message is scored against before the next is learnt.

    counts : (n_tokens, 2) int64, ham and spam counts of the tokens the messages use
        (rows indexed by the token ids the caller passes); updated in place.
    totals : the store's totals before the first message.
    """

    def __init__(self, counts: NDArray[np.int64], totals: Totals) -> None:
        self.counts = counts
        self.messages = list(totals.messages)
        self.tokens = list(totals.tokens)
        self.vocabulary = totals.vocabulary

    def totals(self) -> Totals:
        return Totals(tuple(self.messages), tuple(self.tokens), self.vocabulary)

    def score(
        self, ids: NDArray[np.int64], settings: ScoreSettings, *, log_odds: bool = True,
        temper: bool = True,
    ) -> float:  # fmt: skip
        """The score of the message whose tokens are rows ``ids`` (distinct): its exact
        log-odds (the default), or the score itself; ``temper=False``: not scaled by
        :func:`~nbayes.spam.score.maturity_factor` (what :meth:`sure` judges)."""
        totals = self.totals()
        return float(
            score_counts(self.counts[ids], totals, settings, log_odds=log_odds, temper=temper)
        )

    def maturity(self, settings: ScoreSettings) -> float:
        """:func:`~nbayes.spam.score.maturity_factor` of the counts as they stand."""
        return maturity_factor(self.totals(), settings)

    def learn(self, ids: NDArray[np.int64], label: int) -> None:
        """Count the message whose tokens are rows ``ids`` as ``label`` (0 ham, 1 spam)."""
        if self.vocabulary is not None:
            self.vocabulary += int(np.count_nonzero(self.counts[ids].sum(axis=1) == 0))
        self.counts[ids, label] += 1
        self.messages[label] += 1
        self.tokens[label] += len(ids)

    def sure(self, log_odds: float, label: int, certainty: float) -> bool:
        """Whether ``unless-sure`` skips a message of ``label`` (0 ham, 1 spam) scored
        ``log_odds``: :func:`is_sure`, once at least one message of each class has been
        learnt. Before that every message is learnt: a filter that has seen one class
        only is sure of everything it sees (a run of ``train --ham`` before any spam
        would otherwise learn a few ham and skip the rest)."""
        return min(self.messages) >= 1 and is_sure(log_odds, label == 1, certainty)

    def learn_unless_sure(
        self, ids: NDArray[np.int64], label: int, settings: ScoreSettings, certainty: float
    ) -> tuple[float, bool]:
        """Score the message, then learn it unless :meth:`sure`; returns (its log-odds
        before learning, not tempered, whether it was learnt)."""
        log_odds = self.score(ids, settings, temper=False)
        if self.sure(log_odds, label, certainty):
            return log_odds, False
        self.learn(ids, label)
        return log_odds, True

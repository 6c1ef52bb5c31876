"""A Bayesian spam filter on the nbayes core: mail parsing, a SQLite token store,
Robinson / Fisher / Graham scoring and the true naive Bayes posterior.

Typical use::

    from nbayes.spam import (ScoreSettings, TokenStore, interleave, iter_mail, score_tokens,
                             tokenize, train)
    with TokenStore("tokens.db") as store:
        train(store, interleave(iter_mail(["spam/"]), iter_mail(["ham/"])))
        score_tokens(store, [tokenize(raw)], ScoreSettings())
"""

from typing import TYPE_CHECKING

from nbayes.core.lazy import lazy_exports

#: Public name -> its module, imported on first use: scoring one message need not import
#: scikit-learn (``evaluate``) or the worker pool (``train``).
_EXPORTS = {
    "Evaluation": "nbayes.spam.evaluate",
    "cross_val_scores": "nbayes.spam.evaluate",
    "evaluate_scores": "nbayes.spam.evaluate",
    "fold_indices": "nbayes.spam.evaluate",
    "Mail": "nbayes.spam.parse",
    "MailParseError": "nbayes.spam.parse",
    "parse_mail": "nbayes.spam.parse",
    "ScoreSettings": "nbayes.spam.score",
    "score_matrix": "nbayes.spam.score",
    "score_tokens": "nbayes.spam.score",
    "token_matrix": "nbayes.spam.score",
    "MailItem": "nbayes.spam.sources",
    "iter_mail": "nbayes.spam.sources",
    "StoreError": "nbayes.spam.store",
    "TokenStore": "nbayes.spam.store",
    "mail_tokens": "nbayes.spam.tokens",
    "tokenize": "nbayes.spam.tokens",
    "TrainReport": "nbayes.spam.train",
    "interleave": "nbayes.spam.train",
    "train": "nbayes.spam.train",
}
lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # what static tools see; at run time the names load on first use
    from nbayes.spam.evaluate import Evaluation, cross_val_scores, evaluate_scores, fold_indices
    from nbayes.spam.parse import Mail, MailParseError, parse_mail
    from nbayes.spam.score import ScoreSettings, score_matrix, score_tokens, token_matrix
    from nbayes.spam.sources import MailItem, iter_mail
    from nbayes.spam.store import StoreError, TokenStore
    from nbayes.spam.tokens import mail_tokens, tokenize
    from nbayes.spam.train import TrainReport, interleave, train

__all__ = [
    "Evaluation",
    "Mail",
    "MailItem",
    "MailParseError",
    "ScoreSettings",
    "StoreError",
    "TokenStore",
    "TrainReport",
    "cross_val_scores",
    "evaluate_scores",
    "fold_indices",
    "interleave",
    "iter_mail",
    "mail_tokens",
    "parse_mail",
    "score_matrix",
    "score_tokens",
    "token_matrix",
    "tokenize",
    "train",
]

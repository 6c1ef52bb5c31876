"""A Bayesian spam filter on the nbayes core: mail parsing, a SQLite token store,
Robinson / Fisher / Graham scoring and the true naive Bayes posterior.

Typical use::

    from nbayes.spam import (ScoreSettings, TokenStore, interleave, iter_mail, score_tokens,
                             tokenize, train)
    with TokenStore("tokens.db") as store:
        train(store, interleave(iter_mail(["spam/"]), iter_mail(["ham/"])))
        score_tokens(store, [tokenize(raw)], ScoreSettings())
"""

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

"""A Bayesian spam filter on the nbayes core: mail parsing, a token store (SQLite, or
Redis shared by several mail servers, per user where asked), Robinson / Fisher / Graham
scoring and the true naive Bayes posterior.

Typical use::

    from nbayes.spam import (ScoreSettings, interleave, iter_mail, open_store, score_tokens,
                             tokenize, train)
    with open_store("tokens.db", create=True) as store:  # or redis="redis://host:6379/0"
        train(store, interleave(iter_mail(["spam/"]), iter_mail(["ham/"])))
        score_tokens(store, [tokenize(raw)], ScoreSettings())

More than two classes: train on (message, class) pairs of any class names
(:func:`interleave_classes`), then :func:`classify_classes` names the most probable::

    train(store, interleave_classes({"spam": iter_mail(["spam/"]),
                                     "newsletter": iter_mail(["news/"])}))
    classify_classes(store, [tokenize(raw)])[0].verdict  # 'newsletter'
"""


from nbayes.core.lazy import lazy_exports

#: Public name -> its module, imported on first use: scoring one message need not import
#: scikit-learn (``evaluate``) or the worker pool (``train``).
_EXPORTS = {
    "check_class": "nbayes.spam.classes",
    "ClassVerdict": "nbayes.spam.verdicts",
    "classify_classes": "nbayes.spam.verdicts",
    "interleave_classes": "nbayes.spam.train",
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
    "RedisTokenStore": "nbayes.spam.redis_store",
    "Store": "nbayes.spam.stores",
    "open_store": "nbayes.spam.stores",
    "mail_tokens": "nbayes.spam.tokens",
    "tokenize": "nbayes.spam.tokens",
    "TrainReport": "nbayes.spam.train",
    "interleave": "nbayes.spam.train",
    "train": "nbayes.spam.train",
}
lazy_exports(__name__, _EXPORTS)

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:  # what static tools see; at run time the names load on first use
    from nbayes.spam.classes import check_class
    from nbayes.spam.evaluate import Evaluation, cross_val_scores, evaluate_scores, fold_indices
    from nbayes.spam.parse import Mail, MailParseError, parse_mail
    from nbayes.spam.redis_store import RedisTokenStore
    from nbayes.spam.score import ScoreSettings, score_matrix, score_tokens, token_matrix
    from nbayes.spam.sources import MailItem, iter_mail
    from nbayes.spam.store import StoreError, TokenStore
    from nbayes.spam.stores import Store, open_store
    from nbayes.spam.tokens import mail_tokens, tokenize
    from nbayes.spam.train import TrainReport, interleave, interleave_classes, train
    from nbayes.spam.verdicts import ClassVerdict, classify_classes

__all__ = [
    "ClassVerdict",
    "Evaluation",
    "Mail",
    "MailItem",
    "MailParseError",
    "RedisTokenStore",
    "ScoreSettings",
    "Store",
    "StoreError",
    "TokenStore",
    "TrainReport",
    "check_class",
    "classify_classes",
    "cross_val_scores",
    "evaluate_scores",
    "fold_indices",
    "interleave",
    "interleave_classes",
    "iter_mail",
    "mail_tokens",
    "open_store",
    "parse_mail",
    "score_matrix",
    "score_tokens",
    "token_matrix",
    "tokenize",
    "train",
]

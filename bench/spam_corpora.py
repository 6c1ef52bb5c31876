"""The spam accuracy benchmark's corpora: the shared ones, variants derived from them, and
any corpus given as a TREC Spam Track index file.

Each :class:`Corpus` is a list of message files (bytes on disk, so every filter reads the
same input), labels, and the order in which an incremental (TREC-style) run sees them:

- ``SpamAssassin``: all 6,047 messages (``cmds`` skipped), in Date-header order;
- ``SpamAssassin, later mail``: the same messages, learnt on ``spam`` + ``easy_ham`` and
  tested on ``spam_2`` + ``easy_ham_2`` + ``hard_ham`` (:attr:`Corpus.test`);
- ``SMS``: the SMS Spam Collection, one header-less message per SMS, in file order;
- derived from SpamAssassin (same labels and order), imitating corpora stored
  preprocessed: ``preprocessed`` (a ``Subject:`` line, then the body text lower-cased
  with punctuation spaced out, no blank line between them), ``body only`` (the decoded
  body text, no headers at all), ``lower-cased`` (the raw message lower-cased);
- ``--index NAME=PATH``: a TREC Spam Track index (``spam|ham <path>`` lines, paths
  relative to the index's folder), in the index's order. Such corpora are read where
  they are, for measuring only: nothing of them is kept in this repository.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from spam_data import DATA, SA_FOLDERS, sms_as_files, spamassassin

from nbayes.spam.evaluate import date_order, mail_date
from nbayes.spam.parse import MailParseError, parse_mail

SA_TRAIN_FOLDERS = ("spam", "easy_ham")


@dataclass
class Corpus:
    """Messages on disk, labels (1 spam, 0 ham), the incremental order, and for a
    train/test split the test messages' indices (None: cross-validate)."""

    name: str
    files: list[Path]
    y: np.ndarray
    order: np.ndarray
    test: np.ndarray | None = None


def shared_corpora(tmp: Path) -> list[Corpus]:
    """SpamAssassin (whole and split by time), SMS, and SpamAssassin's derived variants."""
    files, y = spamassassin()
    raws = [f.read_bytes() for f in files]
    order = date_order([mail_date(raw) for raw in raws])
    early = np.array([f.parent.name in SA_TRAIN_FOLDERS for f in files])
    assert set(SA_FOLDERS) >= {f.parent.name for f in files}
    sms_files, sms_y = sms_as_files(tmp / "sms")
    corpora = [
        Corpus("SpamAssassin", files, y, order),
        Corpus("SpamAssassin, later mail", files, y, order, test=np.flatnonzero(~early)),
        Corpus("SMS", sms_files, sms_y, np.arange(len(sms_y))),
    ]
    for name, rewrite in DERIVED.items():
        out = tmp / re.sub(r"\W+", "_", name)
        out.mkdir()
        derived = []
        for i, raw in enumerate(raws):
            path = out / f"{i:05d}"
            path.write_bytes(rewrite(raw))
            derived.append(path)
        corpora.append(Corpus(f"SpamAssassin, {name}", derived, y, order))
    return corpora


def indexed_corpus(name: str, index: Path) -> Corpus:
    """A corpus listed by a TREC Spam Track index file, in the index's order."""
    files, labels = [], []
    for line in index.read_text().splitlines():
        if not line.strip():
            continue
        label, path = line.split(None, 1)
        if label not in ("spam", "ham"):
            raise ValueError(f"{index}: label must be spam or ham, got {label!r}")
        files.append((index.parent / path.strip()).resolve())
        labels.append(label == "spam")
    return Corpus(name, files, np.array(labels, dtype=int), np.arange(len(files)))


_PUNCTUATION = re.compile(r"([^\w\s])")
_SPACES = re.compile(r"[ \t]+")


def _spaced(text: str) -> str:
    """Lower-cased, every punctuation mark a word of its own (``re : 2 . 882``)."""
    return _SPACES.sub(" ", _PUNCTUATION.sub(r" \1 ", text.lower()))


def _body_text(raw: bytes) -> tuple[str, str]:
    """(subject, decoded body text) of a message, by nbayes's own parser."""
    try:
        mail = parse_mail(raw)
    except MailParseError:
        return "", ""
    subject = next((value for name, value in mail.headers if name == "subject"), "")
    return " ".join(subject.split()), "\n".join(mail.texts)


def preprocessed(raw: bytes) -> bytes:
    """``Subject: <subject>`` then the body text, no blank line, spaced and lower-cased."""
    subject, body = _body_text(raw)
    lines = [line.strip() for line in _spaced(body).splitlines() if line.strip()]
    return "\r\n".join([f"Subject: {_spaced(subject).strip()}", *lines]).encode() + b"\r\n"


def body_only(raw: bytes) -> bytes:
    """The decoded body text only, as a header-less message (a blank line first)."""
    return b"\n" + _body_text(raw)[1].encode() + b"\n"


DERIVED: dict[str, Callable[[bytes], bytes]] = {
    "preprocessed": preprocessed,
    "body only": body_only,
}

__all__ = ["DATA", "Corpus", "indexed_corpus", "shared_corpora"]

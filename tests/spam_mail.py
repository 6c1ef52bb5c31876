"""Synthetic mail for the spam filter's tests (not a test module)."""

from __future__ import annotations

import random
from pathlib import Path

SPAM_WORDS = "viagra cheap offer winner money free click casino loan credit pills deal".split()
HAM_WORDS = "meeting patch review python release thanks lunch agenda kernel build notes".split()
COMMON = "the and for you this with have from your will".split()


def synthetic_mail(label: str, i: int, words: int = 40) -> bytes:
    """A plain-text message whose body mixes its class's words with common words."""
    rng = random.Random(f"{label}-{i}")
    own = SPAM_WORDS if label == "spam" else HAM_WORDS
    other = HAM_WORDS if label == "spam" else SPAM_WORDS
    body = [rng.choice(own if rng.random() < 0.5 else COMMON) for _ in range(words)]
    body += [rng.choice(other) for _ in range(2)]  # some overlap, so scores are not all 0/1
    sender = "promo@deals.example" if label == "spam" else "dev@lists.example.org"
    return (
        f"From: {sender}\nTo: user@example.com\nSubject: {label} {i} {rng.choice(own)}\n"
        f"Message-ID: <{label}{i}@example>\n\n" + " ".join(body) + "\n"
    ).encode()


def corpus(n_spam: int, n_ham: int) -> tuple[list[bytes], list[str]]:
    """(messages, labels)."""
    messages = [synthetic_mail("spam", i) for i in range(n_spam)]
    messages += [synthetic_mail("ham", i) for i in range(n_ham)]
    return messages, ["spam"] * n_spam + ["ham"] * n_ham


def corpus_dirs(root: Path, n_spam: int, n_ham: int, suffix: str = ".eml") -> list[str]:
    """:func:`corpus` written as ``root/spam/NNN{suffix}`` and ``root/ham/NNN{suffix}``
    (NNN the message's place in the corpus); the files' paths relative to ``root``."""
    messages, labels = corpus(n_spam, n_ham)
    for label in ("spam", "ham"):
        (root / label).mkdir()
    names = []
    for i, (raw, label) in enumerate(zip(messages, labels, strict=True)):
        names.append(f"{label}/{i:03d}{suffix}")
        (root / names[-1]).write_bytes(raw)
    return names

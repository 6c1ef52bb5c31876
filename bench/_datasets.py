"""Loaders for the real data sets in ``../shared/data`` used by the benchmarks.

Files are read as bytes and decoded as latin-1 (news posts hold non-UTF-8 bytes).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.datasets._twenty_newsgroups import (
    strip_newsgroup_footer,
    strip_newsgroup_header,
    strip_newsgroup_quoting,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def twenty_newsgroups(subset: str, categories=None) -> tuple[list[str], np.ndarray]:
    """Posts of the bydate ``subset`` ("train" or "test") with headers, signature
    footers and quoted lines removed (scikit-learn's ``remove=``), and their
    newsgroup names. Sorted by (newsgroup, file name)."""
    folder = DATA / "20newsgroups_bydate" / f"20news-bydate-{subset}"
    texts, labels = [], []
    for group in sorted(p.name for p in folder.iterdir() if p.is_dir()):
        if categories is not None and group not in categories:
            continue
        for path in sorted((folder / group).iterdir(), key=lambda p: p.name):
            text = path.read_bytes().decode("latin-1")
            text = strip_newsgroup_header(text)
            text = strip_newsgroup_footer(strip_newsgroup_quoting(text))
            texts.append(text)
            labels.append(group)
    return texts, np.array(labels)


def sms_spam() -> tuple[list[str], np.ndarray]:
    """The SMS Spam Collection: messages and their ``ham``/``spam`` labels."""
    texts, labels = [], []
    raw = (DATA / "sms_spam_collection" / "SMSSpamCollection").read_bytes().decode("utf-8")
    for line in raw.splitlines():
        label, text = line.split("\t", 1)
        labels.append(label)
        texts.append(text)
    return texts, np.array(labels)


ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "class",
]  # fmt: skip
ADULT_NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


def adult(subset: str):
    """UCI adult ``subset`` ("data" = train, "test") as a pandas DataFrame (``?``
    kept as its own category) and the labels ``<=50K``/``>50K`` (test's trailing
    period removed)."""
    import pandas as pd

    frame = pd.read_csv(
        DATA / "uci_adult" / f"adult.{subset}",
        header=None,
        names=ADULT_COLUMNS,
        sep=", ",
        engine="python",
        skiprows=1 if subset == "test" else 0,
        skip_blank_lines=True,
    )
    labels = frame.pop("class").str.rstrip(".").to_numpy()
    return frame, labels

"""The spam scenarios' data: SpamAssassin (cmds files skipped) and the SMS Spam
Collection."""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SA_FOLDERS = {"easy_ham": 0, "easy_ham_2": 0, "hard_ham": 0, "spam": 1, "spam_2": 1}


def spamassassin() -> tuple[list[Path], np.ndarray]:
    """Message files and labels (1 spam, 0 ham)."""
    files, labels = [], []
    for folder, label in SA_FOLDERS.items():
        for path in sorted((DATA / "spamassassin" / folder).iterdir()):
            if path.name != "cmds":
                files.append(path)
                labels.append(label)
    return files, np.array(labels)


def sms_as_files(directory: Path) -> tuple[list[Path], np.ndarray]:
    """Each SMS written to its own file as a header-less message (a blank line, then
    the text), the same bytes for every filter compared."""
    files, labels = [], []
    lines = (DATA / "sms_spam_collection" / "SMSSpamCollection").read_bytes().splitlines()
    directory.mkdir(parents=True, exist_ok=True)
    for i, line in enumerate(lines):
        label, _, text = line.partition(b"\t")
        path = directory / f"{i:05d}"
        path.write_bytes(b"\n" + text + b"\n")
        files.append(path)
        labels.append(int(label == b"spam"))
    return files, np.array(labels)


"""Pin the spam tokenizer's output: the token-set digests of a SpamAssassin sample.

Writes ``tests/data/spam_token_digests.json``, beside this script: for every 10th
SpamAssassin message (``../shared/data/spamassassin``; ``cmds`` files skipped, folders
and files in name order), its path relative to the corpus and the SHA-256 of its sorted
token set joined by newlines ("error" for a message the tokenizer rejects).
``tests/spam/test_spam_speed.py`` checks that the current tokenizer gives the same
digests, so a faster parser cannot change a score.

The committed file was written by the tokenizer of commit 771ed43 (before the speed
work of issue 4). Regenerate it only for a deliberate token change, and re-measure
accuracy (``bench/spam_vs_bogofilter.py``) when you do. From the project root:
``.venv/bin/python tests/data/spam_token_digests.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from nbayes.spam.parse import MailParseError
from nbayes.spam.tokens import tokenize

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[2] / "shared" / "data" / "spamassassin"
FOLDERS = ("easy_ham", "easy_ham_2", "hard_ham", "spam", "spam_2")
OUT = HERE / "spam_token_digests.json"
EVERY = 10


def token_digest(raw: bytes) -> str:
    """SHA-256 of the sorted token set, or "error" if the input is not mail."""
    try:
        tokens = tokenize(raw)
    except MailParseError:
        return "error"
    return hashlib.sha256("\n".join(sorted(tokens)).encode()).hexdigest()


def message_files() -> list[Path]:
    """Every SpamAssassin message file, folders and files in name order."""
    if not CORPUS.is_dir():
        raise SystemExit(f"SpamAssassin not found under {CORPUS}")
    return [
        path
        for folder in FOLDERS
        for path in sorted((CORPUS / folder).iterdir())
        if path.name != "cmds"
    ]


def main() -> None:
    digests = {
        path.relative_to(CORPUS).as_posix(): token_digest(path.read_bytes())
        for path in message_files()[::EVERY]
    }
    OUT.write_text(json.dumps(digests, indent=0, sort_keys=True) + "\n")
    print(f"{len(digests)} digests -> {OUT}")


if __name__ == "__main__":
    main()

"""Pin the spam tokenizer's output: the token-set digests of a SpamAssassin sample.

Writes ``tests/data/spam_token_digests.json``: for every 10th SpamAssassin message
(``cmds`` files skipped, folders and files in name order), its path relative to the
corpus and the SHA-256 of its sorted token set joined by newlines ("error" for a
message the tokenizer rejects). ``tests/test_spam_speed.py`` checks that the current
tokenizer gives the same digests, so a faster parser cannot change a score.

The committed file was written by the tokenizer of commit 771ed43 (before the speed
work of issue 4). Re-run this script only for a deliberate token change, and
re-measure accuracy (``bench/spam_vs_bogofilter.py``) when you do.
Run: ``.venv/bin/python bench/spam_token_digests.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from spam_data import DATA, spamassassin

from nbayes.spam.parse import MailParseError
from nbayes.spam.tokens import tokenize

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "spam_token_digests.json"
EVERY = 10


def token_digest(raw: bytes) -> str:
    """SHA-256 of the sorted token set, or "error" if the input is not mail."""
    try:
        tokens = tokenize(raw)
    except MailParseError:
        return "error"
    return hashlib.sha256("\n".join(sorted(tokens)).encode()).hexdigest()


def main() -> None:
    files, _ = spamassassin()
    root = DATA / "spamassassin"
    digests = {
        path.relative_to(root).as_posix(): token_digest(path.read_bytes())
        for path in files[::EVERY]
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(digests, indent=0, sort_keys=True) + "\n")
    print(f"{len(digests)} digests -> {OUT}")


if __name__ == "__main__":
    main()

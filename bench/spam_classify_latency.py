"""One message at a time, as a mail server runs a filter: ``nbayes spam classify``
against ``bogofilter``, each a new process per message (start-up included).

Both filters are trained on fold 0's training messages of SpamAssassin (the same 10
stratified folds, seed 0, as ``spam_vs_bogofilter.py``); then the first ``--messages``
test messages of the fold are classified one process each, alternating nbayes and
bogofilter, and the median wall-clock time per message is reported, with the same
for a Python interpreter that only starts (``python -c pass``) as the floor of any
Python filter. Run: ``.venv/bin/python bench/spam_classify_latency.py [--messages 30]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from spam_data import spamassassin
from spam_vs_bogofilter import ensure_bogofilter

from nbayes.spam.evaluate import fold_indices
from nbayes.spam.sources import MailItem
from nbayes.spam.store import TokenStore
from nbayes.spam.train import train

NBAYES = str(Path(sys.executable).with_name("nbayes"))


def timed(command: list[str], stdin: bytes) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=30)
    args = parser.parse_args()
    version = ensure_bogofilter()
    files, y = spamassassin()
    test_idx = fold_indices(y, 10, seed=0)[0]
    train_idx = np.setdiff1d(np.arange(len(y)), test_idx)
    with tempfile.TemporaryDirectory() as tmp:
        db, bogo = Path(tmp) / "nbayes.db", Path(tmp) / "bogo"
        bogo.mkdir()
        with TokenStore(db) as store:
            items = ((MailItem(str(files[i]), files[i].read_bytes()), ("ham", "spam")[y[i]])
                     for i in train_idx)  # fmt: skip
            train(store, items, on_error=lambda *_: None, jobs=0)
        for flag, label in (("-s", 1), ("-n", 0)):
            names = "".join(f"{files[i]}\n" for i in train_idx if y[i] == label)
            subprocess.run(["bogofilter", "-d", str(bogo), flag, "-b"], input=names.encode(),
                           check=True, capture_output=True)  # fmt: skip
        commands = {
            "nbayes spam classify": [NBAYES, "spam", "classify", "--db", str(db)],
            "bogofilter": ["bogofilter", "-d", str(bogo)],
            "python -c pass (floor of a Python filter)": [sys.executable, "-c", "pass"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for i in test_idx[: args.messages]:
            raw = files[i].read_bytes()
            for name, command in commands.items():
                times[name].append(timed(command, raw))
        shutil.rmtree(bogo)
    print(f"{version}; {args.messages} SpamAssassin messages, one process each (median ms):")
    print("| filter | median ms per message | min ms |\n|---|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values) * 1e3:.1f} | {min(values) * 1e3:.1f} |")


if __name__ == "__main__":
    main()

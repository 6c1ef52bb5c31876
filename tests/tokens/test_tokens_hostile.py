"""The rich tokenizer of :mod:`nbayes.text` takes time linear in hostile text: a joined
run it does not keep whole is scanned again from its next word run, so each scan is
bounded (256 code points); before, ``a.`` * 125,000 took 40 s and more."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("numba")

from nbayes.text import Tokenizer


@pytest.mark.parametrize("text", ["'a.' * 1_000_000", "'a-' * 1_000_000 + '@x'",
                                  "'a@' * 1_000_000", "'a.a@' * 500_000"])  # fmt: skip
def test_long_joined_runs_are_tokenized_within_the_deadline(text):
    code = f"from nbayes.text import Tokenizer; print(len(Tokenizer()({text})))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_joined_runs_up_to_256_code_points_are_kept_whole():
    host = "ab." * 84 + "example"  # 259 code points
    assert Tokenizer(stop_words=None)(host[6:]) == [host[6:]]  # 253
    tokens = Tokenizer(stop_words=None)(host)
    assert host not in tokens and tokens[:2] == ["ab", host[3:]]

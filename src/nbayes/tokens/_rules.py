"""How text becomes features: the tokenizer's rules (:class:`Rules`), which a vocabulary
(:class:`nbayes.tokens._engine.Vocabulary`) keeps and a pass over documents
(:class:`nbayes.tokens._pass.Pass`) reads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Rules:
    """How text becomes features (see :class:`nbayes.text.Tokenizer`)."""

    lowercase: bool = True
    rich: bool = False
    min_len: int = 2
    max_len: int | None = None
    numbers: bool = True
    ngram_range: tuple[int, int] = (1, 1)

    def opts(self, insert: bool) -> NDArray[np.int64]:
        """The rules the compiled pass reads at run time (the layout of
        :mod:`nbayes.tokens._kernels`); ``rich`` picks the pass itself
        (:func:`nbayes.tokens._kernels.analyze_for`), and so does whether n-grams are formed."""
        max_len = np.iinfo(np.int64).max if self.max_len is None else self.max_len
        return np.array(
            [
                self.lowercase,
                self.min_len,
                max_len,
                self.numbers,
                self.ngram_range[0],
                self.ngram_range[1],
                insert,
            ],
            dtype=np.int64,
        )

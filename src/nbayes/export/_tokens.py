"""nbayes's "rich" tokens (:mod:`nbayes.tokens.tokenize`) as ONNX string operators.

The compiled tokenizer scans left to right; at each word character it keeps a URL
(a scheme, up to whitespace, less trailing punctuation), else the *maximal* compound
there (word runs joined by ``.``, ``-``, ``@``, and ``,`` between digits) when that
compound is an e-mail address, a host name or a number, else only its first word run.
Whether a compound is kept depends on where it ends, a look-ahead RE2 lacks. Three
steps express it without one:

1. onnxruntime's ``Tokenizer`` (RE2, *leftmost-longest*) cuts each document into
   cells, ``URL|CHAIN``: a URL, or a maximal compound (longest match is maximal, no
   look-ahead needed).
2. ``RegexFullMatch`` keeps a cell whole when it is a URL, one word run, or an
   accepted compound (of at most 256 code points, as nbayes's ``MAX_COMPOUND``).
3. The other cells, rejected compounds, are cut again, each on its own, by
   ``URL|(?:HOST|EMAIL|NUMBER)$|RUN``: at each run start the accepted rest of the
   compound (``$`` is now the compound's end) or the run alone, as nbayes's scan does.

The tokens of both go back into document order (``TopK`` over cell keys), then the
length, number and stop-word rules drop tokens (before n-grams, as nbayes does), and
n-grams are joined by ``StringConcat`` and counted against the vocabulary
(``LabelEncoder``, ``ScatterND`` adding into (n, n_terms)).

Not expressed, and measured on every document of the shared corpora (20 Newsgroups,
SMS Spam Collection, SpamAssassin; tests/export/test_tokens.py): a rejected compound
whose accepted rest is longer than 256 code points is kept (nbayes splits it further;
2 of 6,047 SpamAssassin messages); a URL whose scheme starts inside a rejected
compound (``1983@http://x.org/``, ``1-www.x.c1/p``: nbayes gives ``1983`` and the URL,
the graph ``1983``, ``http``, ``x.org``; 1 SpamAssassin message); none of 20
Newsgroups' or the SMS messages differ. Character classes are
RE2's Unicode tables (``\\p{L}``, ``\\p{N}``, ``\\p{Nd}``), which match Python's ``\\w``
and ``\\d`` on every code point Python's Unicode database assigns (RE2's tables are
newer: code points unassigned in Python's are word characters there); case folding is
``StringNormalizer`` (C.UTF-8), which folds U+0130 to ``i`` (Python: ``i`` + U+0307)
and a final capital sigma to ``σ`` (Python: ``ς``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Python's ``\w`` (letters, numbers, ``_``), ``\d`` and nbayes's letters (``\w``
#: less digits and ``_``), as RE2 class bodies.
WORD = r"\p{L}\p{N}_"
DIGIT = r"\p{Nd}"
LETTER = r"\p{L}\p{Nl}\p{No}"
#: What ends a URL (whitespace, controls, ``<>"'```, U+0080-U+00A0, U+3000) and the
#: punctuation trimmed from its end.
_URL_STOP = r"\x00-\x20\x7f<>\x22'\x60\x{80}-\x{a0}\x{3000}"
_URL_TRIM = r".,;:!?)\]}"
_SCHEME = rf"(?:[hH][tT][tT][pP][sS]?://|[fF][tT][pP]://|[wW][wW][wW]\.[{WORD}])"
URL = rf"{_SCHEME}(?:[^{_URL_STOP}]*[^{_URL_STOP}{_URL_TRIM}])?"
RUN = rf"[{WORD}]+"
#: A word run in which ``,`` may join digits; a compound of them.
_RUN_WITH_COMMAS = rf"(?:[{LETTER}_]|[{DIGIT}](?:,[{DIGIT}])*)+"
CHAIN = rf"{_RUN_WITH_COMMAS}(?:[.@\-]{_RUN_WITH_COMMAS})*"

#: Step 1: documents -> cells; step 2: the cells kept whole; step 3: the others cut.
#: Steps 2 and 3 read cells known to be maximal compounds, so their expressions check
#: only what tells the kinds apart (few Unicode classes: RE2 compiles each class into
#: thousands of instructions, and a program too large runs without its DFA).
CELLS = rf"{URL}|{CHAIN}"
WHOLE = rf"{URL}|{RUN}"
_NAMED = rf"[^@,]*(?:@[^@,]*)?\.[{LETTER}\-]{{2,}}"  # a host, or an address: one "@"
ACCEPTED = rf"{_NAMED}|[{DIGIT}.,]+"
SHORT = r"[^\n]{0,256}"
SPLIT = rf"{URL}|[{WORD}]{_NAMED}$|[{DIGIT}][{DIGIT}.,]*$|{RUN}"
#: nbayes's KIND_NUMBER tokens and all-digit words (dropped with ``numbers=False``).
NUMBER_TOKEN = rf"[{DIGIT}]+(?:[.,][{DIGIT}]+)*"
#: Pads the rows of onnxruntime's Tokenizer; no cell or token is ever "#".
PAD = "#"


def _tokenizer(graph: Any, x: str, expression: str) -> str:
    """onnxruntime's Tokenizer: the leftmost-longest matches of ``expression`` in
    each string of ``x``, one more axis, padded with :data:`PAD`."""
    tokens = graph.op("Tokenizer", x, domain="com.microsoft", mark=0, mincharnum=1,
                      pad_value=PAD, tokenexp=expression)  # fmt: skip
    return graph.declare(tokens, "string")


def _flat_rows(graph: Any, cells: str) -> tuple[str, str]:
    """``cells`` (n, ...) as a flat vector without pads, and each one's row number."""
    n_rows = graph.op("Shape", cells, start=0, end=1)
    flat = graph.op("Reshape", cells, graph.const(np.array([-1], dtype=np.int64)))
    size = graph.op("Shape", flat)
    width = graph.op("Max", graph.op("Div", size, graph.op("Max", n_rows, graph.const([1]))),
                     graph.const([1]))  # fmt: skip
    index = graph.op("Range", graph.const(np.array(0, dtype=np.int64)),
                     graph.op("Squeeze", size, graph.const([0])),
                     graph.const(np.array(1, dtype=np.int64)))  # fmt: skip
    rows = graph.op("Div", index, width)
    real = graph.op("Not", graph.op("Equal", flat, graph.const(np.array([PAD], dtype=object))))
    return graph.op("Compress", flat, real, axis=0), graph.op("Compress", rows, real, axis=0)


def _full_match(graph: Any, x: str, expression: str) -> str:
    return graph.op("RegexFullMatch", x, pattern=expression)


def rich_tokens(graph: Any, documents: str) -> tuple[str, str]:
    """nbayes's rich tokens of ``documents`` (n,) or (n, m) strings, in document order:
    (tokens (t,), row of each (t,), int64)."""
    cells, rows = _flat_rows(graph, _tokenizer(graph, documents, CELLS))
    whole = graph.op("Or", _full_match(graph, cells, WHOLE), graph.op(
        "And", _full_match(graph, cells, ACCEPTED), _full_match(graph, cells, SHORT)))
    n_cells = graph.op("Shape", cells)
    position = graph.op("Range", graph.const(np.array(0, dtype=np.int64)),
                        graph.op("Squeeze", n_cells, graph.const([0])),
                        graph.const(np.array(1, dtype=np.int64)))  # fmt: skip
    cut = graph.op("Not", whole)
    # one empty cell more, so the Tokenizer's input is never empty (an empty input
    # comes back 1-D): its row of pads is dropped with the others
    to_cut = graph.op("Concat", graph.op("Compress", cells, cut, axis=0),
                      graph.const(np.array([PAD], dtype=object)), axis=0)  # fmt: skip
    pieces = _tokenizer(graph, to_cut, SPLIT)  # (k + 1, w)
    piece_width = graph.op("Shape", pieces, start=1, end=2)
    stride = graph.op("Add", piece_width, graph.const([1]))
    # keys: a whole cell c at c * stride, piece j of cell c at c * stride + j
    whole_keys = graph.op("Mul", graph.op("Compress", position, whole, axis=0), stride)
    cut_at = graph.op("Concat", graph.op("Compress", position, cut, axis=0),
                      graph.const(np.array([0], dtype=np.int64)), axis=0)  # fmt: skip
    offsets = graph.op("Range", graph.const(np.array(0, dtype=np.int64)),
                       graph.op("Squeeze", piece_width, graph.const([0])),
                       graph.const(np.array(1, dtype=np.int64)))  # fmt: skip
    grid = graph.op("Add",
                    graph.op("Unsqueeze", graph.op("Mul", cut_at, stride), graph.const([1])),
                    graph.op("Unsqueeze", offsets, graph.const([0])))  # fmt: skip
    flat_pieces = graph.op("Reshape", pieces, graph.const(np.array([-1], dtype=np.int64)))
    flat_keys = graph.op("Reshape", grid, graph.const(np.array([-1], dtype=np.int64)))
    real = graph.op("Not", graph.op("Equal", flat_pieces,
                                    graph.const(np.array([PAD], dtype=object))))  # fmt: skip
    cut_rows = graph.op("Gather", rows, graph.op("Div", flat_keys, stride), axis=0)
    tokens = graph.op("Concat", graph.op("Compress", cells, whole, axis=0),
                      graph.op("Compress", flat_pieces, real, axis=0), axis=0)  # fmt: skip
    keys = graph.op("Concat", whole_keys, graph.op("Compress", flat_keys, real, axis=0), axis=0)
    token_rows = graph.op("Concat", graph.op("Compress", rows, whole, axis=0),
                          graph.op("Compress", cut_rows, real, axis=0), axis=0)  # fmt: skip
    order = _ascending(graph, keys)
    return (graph.op("Gather", tokens, order, axis=0),
            graph.op("Gather", token_rows, order, axis=0))  # fmt: skip


def word_tokens(graph: Any, documents: str) -> tuple[str, str]:
    """The maximal word runs of ``documents`` (n,) or (n, m), in document order:
    (tokens (t,), row of each (t,), int64)."""
    return _flat_rows(graph, _tokenizer(graph, documents, RUN))


def _ascending(graph: Any, keys: str) -> str:
    """The permutation sorting the distinct int64 ``keys`` (t,) ascending."""
    from onnx import helper

    count = graph.op("Shape", keys)
    order = graph.name("order")
    graph.nodes.append(helper.make_node("TopK", [keys, count], [graph.name("sorted"), order],
                                        axis=0, largest=0, sorted=1))  # fmt: skip
    return order


def drop_tokens(graph: Any, tokens: str, rows: str, *, min_len: int, max_len: int | None,
                numbers: bool, stop_words: Sequence[str]) -> tuple[str, str]:  # fmt: skip
    """``tokens`` (and their ``rows``) less those shorter than ``min_len`` or longer
    than ``max_len`` code points, the number tokens unless ``numbers``, and the stop
    words: nbayes's rules, applied before n-grams are formed."""
    keep = None

    def both(mask: str) -> str:
        return mask if keep is None else graph.op("And", keep, mask)

    if min_len > 1 or max_len is not None:
        high = "" if max_len is None else str(int(max_len))
        keep = both(_full_match(graph, tokens, rf"(?s).{{{int(min_len)},{high}}}"))
    if not numbers:
        keep = both(graph.op("Not", _full_match(graph, tokens, NUMBER_TOKEN)))
    if stop_words:
        stop = graph.label_encoder(tokens, sorted(stop_words), [1] * len(stop_words), 0)
        keep = both(graph.op("Equal", stop, graph.const(np.array(0, dtype=np.int64))))
    if keep is None:
        return tokens, rows
    return graph.op("Compress", tokens, keep, axis=0), graph.op("Compress", rows, keep, axis=0)


def count_terms(graph: Any, tokens: str, rows: str, n_rows: str, terms: Sequence[str],
                ngram_range: tuple[int, int]) -> str:  # fmt: skip
    """The counts (n, len(terms)) of ``terms`` (n-grams joined by a space) among the
    n-grams of each row's ``tokens`` (t,), rows given by ``rows`` (t,), for every n
    of ``ngram_range``; floats of the graph's dtype."""
    low, high = ngram_range
    first = {term: column for column, term in reversed(list(enumerate(terms)))}
    keys, columns = list(first), list(first.values())
    found_rows, found_columns = [], []
    zero = graph.const(np.array([0], dtype=np.int64))
    for n in range(low, high + 1):
        gram, gram_rows = tokens, rows
        if n > 1:
            length = graph.op("Shape", tokens)
            last = graph.op("Sub", length, graph.const([n - 1]))
            parts = [graph.op("Slice", tokens, graph.const([k]),
                              graph.op("Add", last, graph.const([k])), zero)
                     for k in range(n)]  # fmt: skip
            gram = parts[0]
            for part in parts[1:]:
                gram = graph.op("StringConcat", graph.op(
                    "StringConcat", gram, graph.const(np.array([" "], dtype=object))), part)
            gram_rows = graph.op("Slice", rows, zero, last, zero)
            end_rows = graph.op("Slice", rows, graph.const([n - 1]), length, zero)
            same = graph.op("Equal", gram_rows, end_rows)
            gram = graph.op("Compress", gram, same, axis=0)
            gram_rows = graph.op("Compress", gram_rows, same, axis=0)
        column = graph.label_encoder(gram, keys, columns, -1)
        known = graph.op("GreaterOrEqual", column, zero)
        found_rows.append(graph.op("Compress", gram_rows, known, axis=0))
        found_columns.append(graph.op("Compress", column, known, axis=0))
    row = graph.op("Concat", *found_rows, axis=0) if len(found_rows) > 1 else found_rows[0]
    column = (graph.op("Concat", *found_columns, axis=0) if len(found_columns) > 1
              else found_columns[0])  # fmt: skip
    indices = graph.op("Concat", graph.op("Unsqueeze", row, graph.const([1])),
                       graph.op("Unsqueeze", column, graph.const([1])), axis=1)  # fmt: skip
    shape = graph.op("Concat", n_rows, graph.const([len(terms)]), axis=0)
    zeros = graph.op("ConstantOfShape", shape, value=_zero_tensor(graph))
    ones = graph.op("Cast", graph.op("Add", graph.op("Mul", row, graph.const(
        np.array(0, dtype=np.int64))), graph.const(np.array(1, dtype=np.int64))),
        to=graph.float_type)  # fmt: skip
    return graph.op("ScatterND", zeros, indices, ones, reduction="add")


def _zero_tensor(graph: Any) -> Any:
    from onnx import numpy_helper

    return numpy_helper.from_array(np.zeros(1, dtype=graph.dtype))

""":class:`nbayes.text.PostVectorizer` as ONNX string operators: posts -> body counts and
``<field>:<word>`` header counts.

nbayes parses a post (:mod:`nbayes.text.headers`) and tokenizes text it rebuilds from
the parts; the graph cuts the same parts out of the post's text with onnxruntime's
``Tokenizer`` (RE2, leftmost-longest), which gives the same tokens:

- the **signature** (``signature="drop"``): the ``Tokenizer`` in separator mode,
  its separator the last delimiter line (``--``, an optional space or tab) with at
  most 15 line breaks after it, to the end of the text; the piece before it is the
  post. A delimiter line is one whether its line ends in LF or CRLF (nbayes reads
  CRLF as LF first), so the expressions below spell out which raw lines are
  delimiters.
- the **header block**: the leading lines that are ``Name: value`` lines or their
  continuation lines (starting with a space or tab, not blank), up to the first
  blank or other line. With ``header_text="keep"`` nbayes tokenizes
  ``"name: value"`` lines rebuilt from it, then the body; the graph tokenizes each
  name, each ``:value`` and each continuation line apart (:data:`HEADER_PARTS`),
  then the body, as one document: the same tokens in the same order (the rebuilt
  lines differ only in white space). ``"drop"`` keeps the body alone.
- a **header field**'s values: the lines of the block named so (any case) with their
  continuation lines, less the ``Name:`` prefix.

Refused (:class:`NotSupportedError`): ``quotes="drop"`` (its attribution rule needs
word boundaries RE2 reads as ASCII).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from nbayes.errors import NotSupportedError
from nbayes.export import _tokens
from nbayes.export.text import tokenizer_analyzer, write_counts
from nbayes.text.headers import MAX_SIGNATURE_LINES

#: Python's white space (``str.strip``, ``str.isspace``) other than the line feed.
_SPACE = "".join(
    f"\\x{{{c:x}}}" for c in range(0x110000) if chr(c).isspace() and c != 0x0A
)
#: A header line (``[!-9;-~]+:`` then anything) and a continuation line (a space or
#: tab first, something not white space after).
_HEADER_LINE = r"[!-9;-~]+:[^\n]*"
_CONTINUATION = rf"[ \t][{_SPACE}]*[^\n{_SPACE}][^\n]*"
HEADER_BLOCK = rf"\A{_HEADER_LINE}(?:\n(?:{_HEADER_LINE}|{_CONTINUATION}))*"
#: The parts of a header block nbayes rebuilds as ``"name: value"``: a name, a colon
#: and the rest of its line, a continuation line. Tokenized apart, so that a URL
#: does not run from the name on through the colon (``http://x`` as the first line).
HEADER_PARTS = r"(?m:^)[!-9;-~]+|:[^\n]*|(?m:^)[ \t][^\n]*"
#: A raw line that is not a delimiter: followed by LF (``--``, an optional space or
#: tab, then at most two CRs are delimiters: one CR is the CRLF's) or the last line
#: (at most one CR).
_C = r"[^\n]"
_NOT_DELIMITER = (rf"(?:|[^-\n]{_C}*|-|-[^-\n]{_C}*|--(?:[^ \t\r\n]{_C}*"
                  rf"|[ \t](?:[^\r\n]{_C}*|\r[^\r\n]{_C}*|\r\r{_C}+)"
                  rf"|\r(?:[^\r\n]{_C}*|\r{_C}+)))")  # fmt: skip
_NOT_DELIMITER_LAST = (rf"(?:|[^-\n]{_C}*|-|-[^-\n]{_C}*|--(?:[^ \t\r\n]{_C}*"
                       rf"|[ \t](?:[^\r\n]{_C}*|\r{_C}+)|\r{_C}+))")  # fmt: skip
SIGNATURE = (rf"(?m:^)--[ \t]?(?:\r?|\r{{0,2}}\n(?:{_NOT_DELIMITER}\n)"
             rf"{{0,{MAX_SIGNATURE_LINES - 1}}}{_NOT_DELIMITER_LAST})\z")  # fmt: skip


def _field_line(field: str) -> str:
    """The lines of a header block named ``field`` (any case), with continuations."""
    name = "".join(f"[{re.escape(c.lower())}{re.escape(c.upper())}]" if c.isalpha()
                   else re.escape(c) for c in field)  # fmt: skip
    return rf"(?m:^){name}:[^\n]*(?:\n[ \t][^\n]*)*"


def _separated(graph: Any, x: str, separator: str) -> str:
    """The pieces of each string of ``x`` between matches of ``separator`` (the
    Tokenizer in separator mode), one more axis, padded with the pad."""
    pieces = graph.op("Tokenizer", x, domain="com.microsoft", mark=0, mincharnum=1,
                      pad_value=_tokens.PAD, separators=[separator])  # fmt: skip
    return graph.declare(pieces, "string")


def _one_each(graph: Any, x: str) -> str:
    """A Tokenizer's rows of at most one string (n, 0 or 1) as (n,): the string, or
    the empty string."""
    empty = graph.op("Expand", graph.const(np.array([[""]], dtype=object)),
                     graph.op("Concat", graph.op("Shape", x, start=0, end=1),
                              graph.const([1]), axis=0))  # fmt: skip
    both = graph.op("Concat", x, empty, axis=1)
    first = graph.op("Slice", both, graph.const([0]), graph.const([1]), graph.const([1]))
    text = graph.op("Reshape", first, graph.const(np.array([-1], dtype=np.int64)))
    pad = graph.const(np.array([_tokens.PAD], dtype=object))
    return graph.where(graph.op("Equal", text, pad), graph.const(np.array([""], dtype=object)),
                       text)  # fmt: skip


def post_body(graph: Any, text: str, signature: str, header_text: str) -> str:
    """The text nbayes's PostVectorizer tokenizes as a post's body, (n, m) strings per
    post in order: the header block's parts (``header_text="keep"``), then the body
    after the block, less its signature (``signature="drop"``)."""
    body = _one_each(graph, _separated(graph, text, HEADER_BLOCK))
    if signature == "drop":
        body = _one_each(graph, _separated(graph, body, SIGNATURE))
    body = graph.op("Unsqueeze", body, graph.const([1]))
    if header_text == "drop":
        return body
    block = _one_each(graph, _tokens._tokenizer(graph, text, HEADER_BLOCK))
    parts = _tokens._tokenizer(graph, block, HEADER_PARTS)
    return graph.op("Concat", parts, body, axis=1)


def field_values(graph: Any, text: str, field: str) -> str:
    """The values of the header lines named ``field`` (with their continuation
    lines), (n, s) strings per post."""
    block = _one_each(graph, _tokens._tokenizer(graph, text, HEADER_BLOCK))
    lines = _tokens._tokenizer(graph, block, _field_line(field))  # (n, s)
    return graph.op("Flatten", _separated(graph, lines, r"\A[^:]*:"), axis=1)


def write_posts(graph: Any, vectorizer: Any, x: str | None) -> str:
    """The fitted PostVectorizer's matrix (n, n_features) of the documents input."""
    if x is not None:
        raise NotSupportedError("a PostVectorizer must be a pipeline's first step to export.")
    if vectorizer.quotes != "keep":
        raise NotSupportedError(
            "PostVectorizer(quotes='drop') cannot be exported to ONNX: its attribution "
            "lines are found by word boundaries (\\b), which RE2 reads as ASCII; use "
            "quotes='keep'."
        )
    graph.require_opset(20, "A PostVectorizer")
    documents = graph.input("X", "string", (None,))
    body_vectorizer = vectorizer.body_vectorizer_
    text = documents
    if body_vectorizer.tokenizer.lowercase:  # the header and signature rules read either case
        text = graph.op("StringNormalizer", text, case_change_action="LOWER", locale="C.UTF-8")
    body = post_body(graph, text, vectorizer.signature, vectorizer.header_text)
    blocks = [write_counts(graph, body, _analyzer(body_vectorizer), lowered=True)]
    weight = float(vectorizer.header_weight)
    for field, field_vectorizer in vectorizer.header_vectorizers_.items():
        values = field_values(graph, text, field)
        counts = write_counts(graph, values, _analyzer(field_vectorizer), lowered=True)
        if weight != 1:
            counts = graph.op("Mul", counts, graph.const(weight))
        blocks.append(counts)
    return blocks[0] if len(blocks) == 1 else graph.op("Concat", *blocks, axis=1)


def _analyzer(count_vectorizer: Any):
    terms = [t for t, _ in sorted(count_vectorizer.vocabulary_.items(), key=lambda i: i[1])]
    tokenizer = count_vectorizer.tokenizer
    return tokenizer_analyzer(tokenizer, terms, bool(count_vectorizer.binary),
                              tuple(count_vectorizer.ngram_range))  # fmt: skip

"""Documents -> one UTF-8 buffer for the compiled tokenizer: scikit-learn's
``input`` modes, decoding with ``encoding``/``decode_error``, and which documents
are pure ASCII (those take the 8-bytes-at-a-time scan)."""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from nbayes.text import _unicode

# Encodings in which a pure-ASCII byte string decodes to the same ASCII text.
_ASCII_SAFE = {
    "ascii",
    "utf-8",
    "latin-1",
    "iso8859-1",
    *(f"iso8859-{i}" for i in range(2, 17)),
    *(f"cp{i}" for i in range(1250, 1259)),
}


def read_documents(docs: Iterable, input: str) -> list:
    """The raw content of each document for scikit-learn's ``input`` modes."""
    if isinstance(docs, (str, bytes)):
        raise ValueError("Iterable over raw text documents expected, string object received.")
    if input == "filename":
        out = []
        for name in docs:
            with open(name, "rb") as handle:
                out.append(handle.read())
        return out
    if input == "file":
        return [handle.read() for handle in docs]
    if input != "content":
        raise ValueError(f"input must be 'content', 'filename' or 'file'; got {input!r}.")
    return list(docs)


def encode_documents(
    docs: Sequence, encoding: str = "utf-8", decode_error: str = "strict", lowercase: bool = True
) -> tuple[NDArray[np.uint8], NDArray[np.int64], NDArray[np.bool_]]:
    """All documents as one valid UTF-8 buffer, offsets (n_docs + 1,), and whether
    each document is pure ASCII (n_docs,).

    Bytes are decoded with ``encoding``/``decode_error`` as scikit-learn does; pure
    ASCII bytes in an ASCII-compatible encoding are taken as they are. Documents
    whose lower case depends on context (U+0130, U+03A3) are lower-cased by Python.
    """
    try:
        ascii_safe = codecs.lookup(encoding).name in _ASCII_SAFE
    except LookupError as error:
        raise ValueError(f"unknown encoding {encoding!r}") from error
    if ascii_safe and docs and set(map(type, docs)) == {bytes}:
        # all bytes: redo only the non-ASCII documents in Python, then join once
        # (bytes.isascii is a word-at-a-time C loop; the join is the one copy)
        is_ascii = np.fromiter(map(bytes.isascii, docs), bool, len(docs))
        if not is_ascii.all():
            docs = list(docs)
            for index in np.flatnonzero(~is_ascii):
                docs[index] = _utf8(docs[index].decode(encoding, decode_error), lowercase)
        return (*_join(docs), is_ascii)
    parts: list[bytes] = []
    is_ascii = np.zeros(len(docs), bool)
    for index, doc in enumerate(docs):
        if isinstance(doc, (bytes, bytearray, memoryview)):
            doc = bytes(doc)
            if ascii_safe and doc.isascii():
                parts.append(doc)
                is_ascii[index] = True
                continue
            doc = doc.decode(encoding, decode_error)
        elif not isinstance(doc, str):
            if isinstance(doc, float) and np.isnan(doc):
                raise ValueError("np.nan is an invalid document, expected byte or unicode string.")
            raise TypeError(f"document {index} is a {type(doc).__name__}; expected str or bytes.")
        is_ascii[index] = doc.isascii()
        parts.append(_utf8(doc, lowercase))
    return (*_join(parts), is_ascii)


def _utf8(doc: str, lowercase: bool) -> bytes:
    """UTF-8 of a document; lower-cased by Python where its lower case needs context."""
    if lowercase and any(ch in doc for ch in _unicode.CONTEXT_LOWER):
        doc = doc.lower()
    return doc.encode("utf-8", "surrogatepass")


def _join(parts: list[bytes]) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    offsets = np.zeros(len(parts) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)), out=offsets[1:])
    return np.frombuffer(b"".join(parts), dtype=np.uint8), offsets

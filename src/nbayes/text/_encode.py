"""Documents -> UTF-8 for the compiled tokenizer: scikit-learn's ``input`` modes,
decoding with ``encoding``/``decode_error``, and which documents are pure ASCII
(those take the 8-bytes-at-a-time scan).

The documents are not joined into one buffer: :meth:`Text.chunks` joins runs of
about :data:`CHUNK_BYTES` just before the compiled pass reads them, so a corpus costs
one chunk of working memory, not a copy of itself (and the chunk is still in cache
when it is scanned)."""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes.text import _unicode

# Bytes of text joined at a time for the compiled pass (cache-sized; a longer
# document is a chunk of its own).
CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class Text:
    """Documents as UTF-8, each its own bytes: ``parts`` (n_docs,), ``offsets``
    (n_docs + 1,) where each document would start in all of them joined, and
    ``is_ascii`` (n_docs,)."""

    parts: list[bytes]
    offsets: NDArray[np.int64]
    is_ascii: NDArray[np.bool_]

    @property
    def n_docs(self) -> int:
        return len(self.parts)

    def n_bytes(self, start: int = 0, stop: int | None = None) -> int:
        """Bytes of documents start..stop - 1."""
        return int(self.offsets[self.n_docs if stop is None else stop] - self.offsets[start])

    def chunks(
        self, start: int, stop: int, size: int | None = None
    ) -> Iterator[tuple[int, NDArray[np.uint8], NDArray[np.int64], NDArray[np.bool_]]]:
        """Documents start..stop - 1 joined in runs of at most ``size`` bytes (or one
        document): (first document, buffer, offsets into it (from 0), is_ascii)."""
        size = CHUNK_BYTES if size is None else size
        first = start
        while first < stop:
            end = int(np.searchsorted(self.offsets, self.offsets[first] + size, "right")) - 1
            end = min(max(end, first + 1), stop)
            buf = np.frombuffer(b"".join(self.parts[first:end]), dtype=np.uint8)
            offsets = self.offsets[first : end + 1] - self.offsets[first]
            yield first, buf, offsets, self.is_ascii[first:end]
            first = end


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
) -> Text:
    """All documents as valid UTF-8, and whether each is pure ASCII.

    Bytes are decoded with ``encoding``/``decode_error`` as scikit-learn does; pure
    ASCII bytes in an ASCII-compatible encoding are taken as they are. Documents
    whose lower case depends on context (U+0130, U+03A3) are lower-cased by Python.
    """
    try:
        ascii_safe = codecs.lookup(encoding).name in _ASCII_SAFE
    except LookupError as error:
        raise ValueError(f"unknown encoding {encoding!r}") from error
    if ascii_safe and docs and set(map(type, docs)) == {bytes}:
        # all bytes: redo only the non-ASCII documents in Python (bytes.isascii is a
        # word-at-a-time C loop); the ASCII ones are used as they are
        is_ascii = np.fromiter(map(bytes.isascii, docs), bool, len(docs))
        if not is_ascii.all():
            docs = list(docs)
            for index in np.flatnonzero(~is_ascii):
                docs[index] = _utf8(docs[index].decode(encoding, decode_error), lowercase)
        return _text(docs, is_ascii)
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
    return _text(parts, is_ascii)


def _utf8(doc: str, lowercase: bool) -> bytes:
    """UTF-8 of a document; lower-cased by Python where its lower case needs context."""
    if lowercase and any(ch in doc for ch in _unicode.CONTEXT_LOWER):
        doc = doc.lower()
    return doc.encode("utf-8", "surrogatepass")


def _text(parts: Sequence[bytes], is_ascii: NDArray[np.bool_]) -> Text:
    offsets = np.zeros(len(parts) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)), out=offsets[1:])
    return Text(list(parts), offsets, is_ascii)

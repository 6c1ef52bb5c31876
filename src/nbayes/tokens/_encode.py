"""Documents -> UTF-8 for the compiled tokenizer: scikit-learn's ``input`` modes,
decoding with ``encoding``/``decode_error``, and the form each document's bytes
are in (:data:`UTF8`, :data:`ASCII`, or :data:`LATIN1`: latin-1 bytes kept as they
are and decoded by the compiled pass, one byte a code point).

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

from nbayes.tokens import _unicode

# Bytes of text joined at a time for the compiled pass (cache-sized; a longer
# document is a chunk of its own).
CHUNK_BYTES = 1 << 20

# the forms of a document's bytes (Text.form)
UTF8, ASCII, LATIN1 = 0, 1, 2


@dataclass(frozen=True)
class Text:
    """Documents as bytes, each its own: ``parts`` (n_docs,), ``offsets``
    (n_docs + 1,) where each document would start in all of them joined, and
    ``form`` (n_docs,) uint8: :data:`UTF8` (valid UTF-8), :data:`ASCII` (all bytes
    < 0x80) or :data:`LATIN1` (latin-1 bytes, some >= 0x80)."""

    parts: list[bytes]
    offsets: NDArray[np.int64]
    form: NDArray[np.uint8]

    @property
    def n_docs(self) -> int:
        return len(self.parts)

    def n_bytes(self, start: int = 0, stop: int | None = None) -> int:
        """Bytes of documents start..stop - 1."""
        return int(self.offsets[self.n_docs if stop is None else stop] - self.offsets[start])

    def chunks(
        self, start: int, stop: int, size: int | None = None
    ) -> Iterator[tuple[int, NDArray[np.uint8], NDArray[np.int64], NDArray[np.uint8]]]:
        """Documents start..stop - 1 joined in runs of at most ``size`` bytes (or one
        document): (first document, buffer, offsets into it (from 0), form)."""
        size = CHUNK_BYTES if size is None else size
        first = start
        while first < stop:
            end = int(np.searchsorted(self.offsets, self.offsets[first] + size, "right")) - 1
            end = min(max(end, first + 1), stop)
            # writable (a bytearray, joined at the same cost), as every other byte
            # array the kernels take, so that each of them compiles once
            buf = np.frombuffer(bytearray().join(self.parts[first:end]), dtype=np.uint8)
            offsets = self.offsets[first : end + 1] - self.offsets[first]
            yield first, buf, offsets, self.form[first:end]
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
    """All documents as valid UTF-8 or latin-1 bytes, and the form of each.

    Bytes are decoded with ``encoding``/``decode_error`` as scikit-learn does; pure
    ASCII bytes in an ASCII-compatible encoding are taken as they are, and so are
    latin-1 bytes (every byte is the code point of its value; the compiled pass
    decodes them). Documents whose lower case depends on context (U+0130, U+03A3,
    never in latin-1) are lower-cased by Python.
    """
    try:
        codec = codecs.lookup(encoding).name
    except LookupError as error:
        raise ValueError(f"unknown encoding {encoding!r}") from error
    ascii_safe = codec in _ASCII_SAFE
    other = LATIN1 if codec == "iso8859-1" else UTF8  # the form of non-ASCII bytes
    if ascii_safe and docs and set(map(type, docs)) == {bytes}:
        if other == LATIN1:  # all read as they are: the pass finds any non-ASCII bytes
            return _text(docs, np.full(len(docs), LATIN1, np.uint8))
        # all bytes: redo only the non-ASCII documents in Python (bytes.isascii is a
        # word-at-a-time C loop); the ASCII ones are used as they are
        is_ascii = np.fromiter(map(bytes.isascii, docs), bool, len(docs))
        if not is_ascii.all():
            docs = list(docs)
            for index in np.flatnonzero(~is_ascii):
                docs[index] = _utf8(docs[index].decode(encoding, decode_error), lowercase)
        return _text(docs, np.where(is_ascii, ASCII, UTF8).astype(np.uint8))
    parts: list[bytes] = []
    form = np.full(len(docs), UTF8, np.uint8)
    for index, doc in enumerate(docs):
        if isinstance(doc, (bytes, bytearray, memoryview)):
            doc = bytes(doc)
            if ascii_safe and doc.isascii():
                parts.append(doc)
                form[index] = ASCII
                continue
            if other == LATIN1:
                parts.append(doc)
                form[index] = LATIN1
                continue
            doc = doc.decode(encoding, decode_error)
        elif not isinstance(doc, str):
            if isinstance(doc, float) and np.isnan(doc):
                raise ValueError("np.nan is an invalid document, expected byte or unicode string.")
            raise TypeError(f"document {index} is a {type(doc).__name__}; expected str or bytes.")
        form[index] = ASCII if doc.isascii() else UTF8
        parts.append(_utf8(doc, lowercase))
    return _text(parts, form)


def _utf8(doc: str, lowercase: bool) -> bytes:
    """UTF-8 of a document; lower-cased by Python where its lower case needs context."""
    if lowercase and any(ch in doc for ch in _unicode.CONTEXT_LOWER):
        doc = doc.lower()
    return doc.encode("utf-8", "surrogatepass")


def _text(parts: Sequence[bytes], form: NDArray[np.uint8]) -> Text:
    offsets = np.zeros(len(parts) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)), out=offsets[1:])
    return Text(list(parts), offsets, form)

"""Progress bars (tqdm) on a terminal; nothing when stderr is piped or redirected."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def on_terminal() -> bool:
    """Whether progress is shown: stderr is a terminal."""
    stream = sys.stderr
    return bool(getattr(stream, "isatty", None) and stream.isatty())


def _bar(**options: Any):
    from tqdm import tqdm

    return tqdm(file=sys.stderr, leave=False, dynamic_ncols=True, **options)


class ByteProgress(io.RawIOBase):
    """A binary file whose reads advance a progress bar of ``total`` bytes."""

    def __init__(self, raw, total: int, name: str):
        self.raw = raw
        self.bar = _bar(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=name)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.raw.readinto(buffer)
        self.bar.update(n or 0)
        return n

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.bar.update(len(data))
        return data

    def peek(self, size: int = 0) -> bytes:
        return self.raw.peek(size)

    def close(self) -> None:
        if not self.closed:
            self.bar.close()
            self.raw.close()
        super().close()


def steps(items: Iterable[T], total: int | None = None, desc: str = "") -> Iterator[T]:
    """``items``, with a progress bar on a terminal."""
    if not on_terminal():
        yield from items
        return
    bar = _bar(total=total, desc=desc)
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()

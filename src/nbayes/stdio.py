"""The standard streams of the ``nbayes`` program, made safe before anything else runs.

A process started with one of its standard file descriptors closed (a mail server or a
daemon does that: ``nbayes spam classify 2>&-``) has ``sys.stderr`` (or ``stdin``,
``stdout``) set to None by Python, and the descriptor free: ``print(..., file=None)``
then writes to *stdout*, into the very message ``classify -p`` passes on, and the next
file opened (the token database) is given descriptor 2, where any later write to
stderr would land. :func:`reopen_closed_streams` puts ``/dev/null`` on every closed one
first (what daemons do), so that each stream goes where its name says, and records
which were closed (:func:`closed_at_start`): a command whose output is the point
(``spam classify``, whose stdout carries the mail) refuses to run without it.

>>> reopen_closed_streams() <= {"stdin", "stdout", "stderr"}
True
"""

from __future__ import annotations

import os
import sys

#: (name, descriptor, open flags) of the standard streams.
_STREAMS = (("stdin", 0, os.O_RDONLY), ("stdout", 1, os.O_WRONLY), ("stderr", 2, os.O_WRONLY))
_closed: set[str] = set()


def reopen_closed_streams() -> frozenset[str]:
    """Open ``/dev/null`` on each standard descriptor that is closed, and give Python a
    stream over it where it has None; the names of those that were closed (also kept
    for :func:`closed_at_start`)."""
    for name, descriptor, flags in _STREAMS:
        try:
            os.fstat(descriptor)
        except OSError:
            opened = os.open(os.devnull, flags)
            if opened != descriptor:  # a lower one was closed too: it is reopened in turn
                os.dup2(opened, descriptor)
                os.close(opened)
            _closed.add(name)
        if getattr(sys, name) is None:
            stream = open(  # the process's own stream, never closed
                descriptor, "r" if descriptor == 0 else "w", closefd=False,
                errors="backslashreplace" if descriptor == 2 else None,
                buffering=1 if descriptor == 2 else -1,
            )  # fmt: skip
            setattr(sys, name, stream)
    return frozenset(_closed)


def closed_at_start() -> frozenset[str]:
    """The standard streams :func:`reopen_closed_streams` found closed (none where it
    has not run: library use)."""
    return frozenset(_closed)

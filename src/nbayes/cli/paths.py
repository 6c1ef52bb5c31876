"""Output paths that never destroy the user's data: every command that writes a file
refuses, before it reads or writes anything, an output that is one of its own inputs.

An output *is* an input when it names the same file: the same path, a symbolic link to
it (or from it), a hard link (another name for the same inode: ``os.stat`` gives the
same ``st_dev`` and ``st_ino``), the file redirected to stdin when the input is ``-``,
or, for an input that is a directory (a maildir, a folder of messages), any path
inside it. Only then: a model written over an older model, a report over an older
report, are ordinary.

A command declares its outputs and inputs by parameter name with :func:`guard_outputs`
(which also lets a test find every writing command and try it):

>>> import click
>>> @guard_outputs(outputs=["output"], inputs=["data"])
... @click.command()
... @click.argument("data")
... @click.option("--output", "-o")
... def copy(data, output):
...     '''Copy DATA to --output.'''
>>> copy.guarded
(('output',), ('data',))

Code that is not a click command (or that learns a path later) calls
:func:`refuse_overwriting_inputs` itself.

A command whose outputs must land in an existing folder (the table commands: a model,
predictions, a report, written only after all the work) passes ``parent_must_exist=True``:
an output whose folder is absent is then refused before any work
(:func:`refuse_missing_parents`), rather than after minutes of it with ``[Errno 2]``.
Commands that create their output's folder themselves (``spam --db``) leave it False.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import click

__all__ = [
    "MissingFolderError",
    "OverwriteError",
    "guard_outputs",
    "refuse_missing_parents",
    "refuse_overwriting_inputs",
    "same_file",
]

#: A path as a command takes it: text, a ``pathlib.Path``, None (not given) or ``-``.
PathLike = str | os.PathLike | None
#: One parameter's paths: a path, or several (a repeatable option).
Paths = PathLike | Iterable[PathLike]


class OverwriteError(click.ClickException):
    """An output path that is one of the command's inputs: one line, exit status 2
    (bad usage, as for every other input error of the command line)."""

    exit_code = 2


class MissingFolderError(click.ClickException):
    """An output path whose folder does not exist: one line, exit status 2."""

    exit_code = 2


def refuse_missing_parents(outputs: Mapping[str, Paths]) -> None:
    """Raise :class:`MissingFolderError` if the folder of a path of ``outputs`` (what
    the user calls it, ``--output``, mapped to a path or paths; None and ``-`` skipped)
    is absent or not a folder, so that a command refuses it before any work.

    >>> refuse_missing_parents({"--output": "out.csv"})
    >>> refuse_missing_parents({"--output": "/no/such/folder/out.csv"})
    Traceback (most recent call last):
    ...
    nbayes.cli.paths.MissingFolderError: --output /no/such/folder/out.csv: the folder ...
    """
    for out_name, out_paths in outputs.items():
        for output in _each(out_paths):
            if output is None or str(output) == "-":
                continue
            folder = Path(os.path.abspath(output)).parent
            if not folder.is_dir():
                what = "is not a folder" if folder.exists() else "does not exist"
                raise MissingFolderError(
                    f"{out_name} {output}: the folder {folder} {what}; create it "
                    "first (mkdir -p) or choose another output path"
                )


def same_file(output: PathLike, source: PathLike) -> str | None:
    """How writing ``output`` would change the input ``source``, in words (``"the same
    file"``, ``"a symbolic link to data.csv"``, ``"a hard link to data.csv"``,
    ``"inside the folder mail"``), or None where it cannot. ``source`` ``-`` is stdin:
    the regular file it was redirected from, if any."""
    if output is None or source is None or str(output) == "-":
        return None
    out = Path(output)
    if str(source) == "-":
        return _stdin_is(out)
    src = Path(source)
    resolved_out, resolved_src = Path(os.path.realpath(out)), Path(os.path.realpath(src))
    out_stat, src_stat = _stat(out), _stat(src)
    if src_stat is not None and stat.S_ISDIR(src_stat.st_mode):
        if resolved_out == resolved_src or resolved_src in resolved_out.parents:
            return f"inside the folder {source}"
        return None
    if out_stat is not None and not stat.S_ISREG(out_stat.st_mode):
        return None  # a device such as /dev/null, a pipe: writing it changes no file
    if resolved_out == resolved_src:
        if _plain(out) == _plain(src):
            return "the same file"
        return f"the same file as {source}, through a symbolic link"
    if out_stat is None or src_stat is None:
        return None  # nothing there yet
    if (out_stat.st_dev, out_stat.st_ino) == (src_stat.st_dev, src_stat.st_ino):
        return f"a hard link to {source}"
    return None


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):  # absent, a dangling link, a NUL in the name
        return None


def _plain(path: Path) -> Path:
    """``path`` made absolute without following symbolic links."""
    return Path(os.path.abspath(path))


def _stdin_is(output: Path) -> str | None:
    """Whether ``output`` is the regular file stdin was redirected from (``< data.csv``)."""
    try:
        inside = os.fstat(sys.stdin.fileno())
        out_stat = os.stat(output)
    except (OSError, ValueError, AttributeError):  # no stdin, a closed or fake one
        return None
    if not stat.S_ISREG(inside.st_mode) or not stat.S_ISREG(out_stat.st_mode):
        return None
    if (inside.st_dev, inside.st_ino) == (out_stat.st_dev, out_stat.st_ino):
        return "the file redirected to stdin"
    return None


def _each(paths: Paths) -> list[PathLike]:
    if paths is None or isinstance(paths, (str, os.PathLike)):
        return [paths]
    return list(paths)


def refuse_overwriting_inputs(outputs: Mapping[str, Paths], inputs: Mapping[str, Paths]) -> None:
    """Raise :class:`OverwriteError` if a path of ``outputs`` is one of ``inputs``
    (see :func:`same_file`); both map what the user calls them (``--output``, ``DATA``)
    to a path or paths (None and ``-`` for stdout are skipped).

    >>> refuse_overwriting_inputs({"--output": "out.csv"}, {"DATA": "in.csv"})
    >>> refuse_overwriting_inputs({"--output": "in.csv"}, {"DATA": "in.csv"})
    Traceback (most recent call last):
    ...
    nbayes.cli.paths.OverwriteError: --output in.csv is the input DATA (the same file): ...
    """
    for out_name, out_paths in outputs.items():
        for output in _each(out_paths):
            for in_name, in_paths in inputs.items():
                for source in _each(in_paths):
                    how = same_file(output, source)
                    if how is not None:
                        raise OverwriteError(
                            f"{out_name} {output} is the input {in_name} ({how}): nbayes "
                            "never writes over its input; choose another output path"
                        )


def _label(command: click.Command, name: str) -> str:
    """What the user calls parameter ``name``: its longest option (``--output``) or,
    for an argument, its metavar (``DATA``)."""
    for param in command.params:
        if param.name == name:
            if isinstance(param, click.Option):
                return max(param.opts, key=len)
            return param.human_readable_name
    raise ValueError(f"{command.name}: no parameter {name!r}")


def guard_outputs(
    *, outputs: Sequence[str], inputs: Sequence[str], parent_must_exist: bool = False
) -> Callable[[click.Command], click.Command]:
    """Decorate a click command (put it above ``@click.command()``) so that, before its
    body runs, the paths of the parameters ``outputs`` are checked against those of
    ``inputs`` (:func:`refuse_overwriting_inputs`) and, with ``parent_must_exist``, for
    a folder that exists (:func:`refuse_missing_parents`). The command gets ``guarded =
    (outputs, inputs)``, the names, for tests that try every writing command, and
    ``parents_checked = parent_must_exist``."""

    def decorate(command: click.Command) -> click.Command:
        for name in (*outputs, *inputs):
            _label(command, name)  # a typo fails at import, not on a user's data
        callback = command.callback

        @functools.wraps(callback)
        def guarded(*args, **kwargs):
            if parent_must_exist:
                refuse_missing_parents(
                    {_label(command, name): kwargs.get(name) for name in outputs}
                )
            refuse_overwriting_inputs(
                {_label(command, name): kwargs.get(name) for name in outputs},
                {_label(command, name): kwargs.get(name) for name in inputs},
            )
            return callback(*args, **kwargs)

        command.callback = guarded
        command.guarded = (tuple(outputs), tuple(inputs))
        command.parents_checked = parent_must_exist
        return command

    return decorate

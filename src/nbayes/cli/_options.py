"""The reading options every command that reads a table shares."""

from __future__ import annotations

import click

from nbayes.cli._tables import (
    DEFAULT_MAX_COLUMNS,
    FORMATS,
    MAX_MAX_COLUMNS,
    ReadSpec,
    is_text_encoding,
)


def _known_encoding(_ctx, _param, value: str | None) -> str | None:
    """``--encoding``: a name Python knows (``latin-1``, ``cp1252``, ``utf-16``), checked
    before anything is read."""
    if value is not None and not is_text_encoding(value):  # unknown, or bytes to bytes
        raise click.BadParameter(f"unknown text encoding {value!r}")
    return value


def read_options(command=None, *, output_formats: tuple[str, ...] = ()):
    """Add --format, --sep, --encoding, --header/--no-header, --na-values and the other
    reading options. ``output_formats``: values --format also takes, naming the
    output's format (``explain --format json``, from before --to); the command then
    has the hidden --input-format of old, too."""
    if command is None:
        return lambda command: read_options(command, output_formats=output_formats)
    inputs = sorted(set(FORMATS.values()))
    outputs = f"; {' or '.join(output_formats)} name the output's, as --to" * bool(output_formats)
    options = [
        click.option(
            "--format",
            "fmt",
            type=click.Choice([*inputs, *output_formats]),
            default=None,
            help="Input format (default: from the file's suffix, .gz/.bz2/.xz/.zst/.zip "
            f"looked through; CSV for stdin){outputs}.",
        ),
        *(
            [click.option("--input-format", "input_fmt", type=click.Choice(inputs), hidden=True)]
            if output_formats
            else []
        ),
        click.option("--sep", default=None, help="Field separator of CSV input (default ',')."),
        click.option(
            "--encoding",
            default=None,
            callback=_known_encoding,
            help="Text encoding of CSV input (default UTF-8).",
        ),
        click.option(
            "--header/--no-header",
            default=None,
            help="Whether the first line names the columns (default: it does). Without "
            "a header, columns are named by position from 0.",
        ),
        click.option(
            "--na-values",
            multiple=True,
            metavar="TEXT",
            help="A value that marks a missing value, e.g. '?' (besides empty, NA, null, "
            "NaN, ...); repeatable.",
        ),
        click.option(
            "--default-na/--no-default-na",
            default=None,
            help="Whether NA, N/A, NULL, None, NaN, nan, #N/A ... in CSV input mark missing "
            "values (default: they do); --no-default-na reads them as written (a class "
            "'None', a region 'NA'), only empty cells and --na-values being missing.",
        ),
        click.option(
            "--strip-spaces/--keep-spaces",
            default=None,
            help="Trim spaces around every value and column name of the input (the UCI "
            "files' ', ' separators: ' Private' read as 'Private'); default: keep them.",
        ),
        click.option(
            "--quoting/--no-quoting",
            default=None,
            help="Whether a double quote starts a quoted value in CSV/TSV input (default: "
            "it does, unless the first lines show the file never quotes: a value that goes "
            "on after its closing quote, as in the SMS Spam Collection's TSV, where a "
            "message starting with a quote would swallow the lines after it).",
        ),
        click.option(
            "--max-columns",
            type=click.IntRange(1, MAX_MAX_COLUMNS),
            default=None,
            metavar="N",
            help=f"The widest table read (default {DEFAULT_MAX_COLUMNS:,} columns): a wider "
            "one is refused before it is parsed, as it would take minutes and gigabytes. "
            "Kept in the model file for predict, score and explain.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def read_spec(
    fmt=None, sep=None, encoding=None, header=None, na_values=(), default_na=None,
    strip_spaces=None, quoting=None, input_fmt=None, max_columns=None,
) -> ReadSpec:  # fmt: skip
    """The reading options as a :class:`ReadSpec` (None where not given; ``fmt`` an
    input format: an output's given to --format is the caller's to take out first)."""
    fmt = input_fmt or fmt
    if sep is not None:
        sep = {"\\t": "\t", "tab": "\t"}.get(sep, sep)
    return ReadSpec(
        fmt, sep, encoding, header, tuple(na_values) or None, default_na, strip_spaces,
        quoting, max_columns=max_columns,
    )  # fmt: skip

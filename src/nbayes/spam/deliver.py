"""Classifying one delivered message, as ``nbayes spam classify`` does for a mail server.

:func:`classify_delivery` is the whole command once its options are known: read the
message from a stream (at most ``max_size`` bytes held), score it, and write either the
verdict line or, with ``passthrough``, the message marked with its verdict. It never
loses or holds up mail: on any failure at all (mail over the size limit or nested too
deep, a parser error, a store that cannot be read, a bug) the message goes through
unchanged with ``passthrough``, one line goes to stderr, and the exit status is 3.

It imports neither click nor NumPy, so that both the click command
(:mod:`nbayes.cli.spam.classify`) and the lean front door of the ``nbayes`` program
(:mod:`nbayes.console`), which a mail server starts once per message, run this same code.

With ``classes`` the verdict is the multi-class one (:mod:`nbayes.spam.classes`): the
most probable of every class the store learnt, named in the header
:data:`CLASS_HEADER` with its probability; exit 0 for spam, 1 for ham, 2 for any other
class (as Unsure: neither spam nor ham), 3 for an error.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from typing import BinaryIO, TextIO

    from nbayes.spam.score import ScoreSettings
    from nbayes.spam.store_protocol import Store
    from nbayes.spam.verdicts import ClassVerdict

#: Exit status per verdict (bogofilter's); 3 is an error (:data:`EXIT_ERROR`).
EXIT = {"Spam": 0, "Ham": 1, "Unsure": 2}
EXIT_ERROR = 3
#: Exit status of a multi-class verdict (``classes``): spam and ham as their two-class
#: verdicts, any other class :data:`EXIT_OTHER_CLASS` (as Unsure: neither spam nor ham).
EXIT_CLASS = {"spam": 0, "ham": 1}
EXIT_OTHER_CLASS = 2
#: The verdict header of a multi-class verdict unless another is named.
CLASS_HEADER = "X-Nbayes-Class"


def classify_delivery(
    stdin: BinaryIO,
    stdout: BinaryIO,
    stderr: TextIO,
    open_store: Callable[[bool], Store],
    settings: ScoreSettings,
    *,
    passthrough: bool = False,
    exit_zero: bool = False,
    update: bool = False,
    header: str | None = None,
    subject_tag: str = "",
    spamassassin_headers: bool = False,
    max_mime_depth: int | None = None,
    max_size: int | None = None,
    classes: bool = False,
    as_json: bool = False,
) -> int:
    """Classify the message on ``stdin``; the exit status (0 spam, 1 ham, 2 unsure, 3
    error; 0 for every verdict with ``exit_zero``).

    ``open_store(update)`` opens the token store (for writing where ``update``: the
    message is then learnt as its verdict unless Unsure). Without ``passthrough`` the
    verdict and score go to ``stdout`` as one line, ``"Ham\\t0.000012"``; with it the
    message itself, marked (:func:`nbayes.spam.mark.mark`: ``header``, ``subject_tag``
    and, with ``spamassassin_headers``, SpamAssassin's headers). ``max_mime_depth`` and
    ``max_size`` default to :data:`~nbayes.spam.parse.MAX_MIME_DEPTH` and
    :data:`~nbayes.spam.limits.DEFAULT_MAX_SIZE`.

    ``classes``: the multi-class verdict (see the module docstring): ``stdout`` gets a
    line ``"CLASS\tPROBABILITY"`` per class, most probable first, or the message marked
    with :data:`CLASS_HEADER` (``header`` where given); ``update`` and
    ``spamassassin_headers`` do not apply (the caller refuses them). ``as_json``: the
    verdict as one JSON object, ``{"verdict": "Spam", "score": ...}`` or, with
    ``classes``, ``{"verdict": CLASS, "probabilities": {CLASS: P, ...}}``.
    """
    from nbayes.spam.limits import DEFAULT_MAX_SIZE, copy_rest, read_at_most

    max_size = DEFAULT_MAX_SIZE if max_size is None else max_size
    try:
        raw, whole = read_at_most(stdin, max_size)
    except OSError as error:  # stdin cannot be read (EBADF, EIO): exit 3, never Unsure
        print(f"nbayes: cannot read the message from stdin: {one_line(error)}", file=stderr)
        return EXIT_ERROR
    if not whole:  # spamc's way: too large to scan, passed on as it is
        print(f"nbayes: message over {max_size} bytes (--max-size): not scanned", file=stderr)
        if passthrough:
            stdout.write(raw)
            copy_rest(stdin, stdout)
            stdout.flush()
        return EXIT_ERROR
    probabilities = None
    try:
        if classes:
            found = classify_message_classes(raw, open_store, settings, max_mime_depth)
            verdict, probabilities = found.verdict, found.probabilities
            value = probabilities[verdict]
        else:
            verdict, value = classify_message(raw, open_store, settings, update, max_mime_depth)
        output = None
        if passthrough:
            from nbayes.spam.mark import DEFAULT_HEADER, POINTS, mark

            output = mark(
                raw, verdict, value,
                header=header or (CLASS_HEADER if classes else DEFAULT_HEADER),
                subject_tag=subject_tag,
                spamassassin=POINTS * value if spamassassin_headers and not classes else None,
                threshold=POINTS * settings.spam_cutoff,
                spam=verdict == "spam" if classes else None,
            )  # fmt: skip
    except Exception as error:  # anything at all: the message goes through unchanged
        print(f"nbayes: {one_line(error)}", file=stderr)
        if passthrough:
            stdout.write(raw)
            stdout.flush()
        return EXIT_ERROR
    if output is None:
        output = verdict_text(verdict, value, probabilities, as_json).encode()
    stdout.write(output)
    stdout.flush()
    if exit_zero:
        return 0
    return EXIT_CLASS.get(verdict, EXIT_OTHER_CLASS) if classes else EXIT[verdict]


def verdict_text(
    verdict: str, value: float, probabilities: dict[str, float] | None, as_json: bool
) -> str:
    """What ``classify`` prints of a verdict: ``"Spam\t0.999000\n"``; with
    ``probabilities`` (a multi-class verdict) a line per class, most probable first
    (ties in the order given); with ``as_json`` one JSON object.

    >>> print(verdict_text("news", 0.75, {"ham": 0.25, "news": 0.75}, False), end="")
    news	0.750000
    ham	0.250000
    >>> print(verdict_text("Ham", 0.125, None, True), end="")
    {"verdict": "Ham", "score": 0.125}
    """
    if as_json:
        import json

        if probabilities is None:
            return json.dumps({"verdict": verdict, "score": value}) + "\n"
        return json.dumps({"verdict": verdict, "probabilities": probabilities}) + "\n"
    if probabilities is None:
        return f"{verdict}\t{value:.6f}\n"
    ranked = sorted(probabilities.items(), key=lambda item: -item[1])  # stable for ties
    return "".join(f"{name}\t{p:.6f}\n" for name, p in ranked)


def classify_message_classes(
    raw: bytes,
    open_store: Callable[[bool], Store],
    settings: ScoreSettings,
    max_mime_depth: int | None = None,
) -> ClassVerdict:
    """The multi-class verdict of the message ``raw`` (the store opened read-only)."""
    from nbayes.spam.parse import MAX_MIME_DEPTH, check_mime_depth
    from nbayes.spam.store_options import store_options
    from nbayes.spam.tokens import tokenize
    from nbayes.spam.verdicts import classify_classes

    check_mime_depth(raw, MAX_MIME_DEPTH if max_mime_depth is None else max_mime_depth)
    with open_store(False) as store:
        tokens = tokenize(raw, store_options(store))
        [found] = classify_classes(store, [tokens], settings.alpha)
    return found


def classify_standard_streams(
    open_store: Callable[[bool], Store], settings: ScoreSettings, **options
) -> int:
    """:func:`classify_delivery` on this process's stdin, stdout and stderr (``options``
    its keyword arguments): both front doors of ``nbayes spam classify`` (the click
    command and :mod:`nbayes.console`) call this. A stdout that was closed when the
    process started (:func:`nbayes.stdio.closed_at_start`) has nowhere to take the
    verdict or the message, and one that fails to take them (a full disk) has lost
    them: one line on stderr and exit status 3 (a delivery agent keeps the message,
    and retries)."""
    import sys

    from nbayes.stdio import closed_at_start

    if "stdout" in closed_at_start():
        print("nbayes: stdout is closed: nowhere to write the verdict or the message "
              "(not scanned)", file=sys.stderr)  # fmt: skip
        return EXIT_ERROR
    try:
        return classify_delivery(
            sys.stdin.buffer, sys.stdout.buffer, sys.stderr, open_store, settings, **options
        )
    except BrokenPipeError:  # stdout's reader went away: the front door ends quietly (141)
        raise
    except OSError as error:  # stdout cannot be written (a full disk): exit 3, never Unsure
        print(f"nbayes: cannot write to stdout: {one_line(error)}", file=sys.stderr)
        return EXIT_ERROR


def classify_message(
    raw: bytes,
    open_store: Callable[[bool], Store],
    settings: ScoreSettings,
    update: bool = False,
    max_mime_depth: int | None = None,
) -> tuple[str, float]:
    """(verdict, score) of the message ``raw``; with ``update``, learnt as its verdict if
    that is not Unsure (once per message, however often it comes)."""
    from nbayes.spam.parse import MAX_MIME_DEPTH, check_mime_depth
    from nbayes.spam.single import score_message
    from nbayes.spam.store_options import store_options
    from nbayes.spam.tokens import tokenize

    check_mime_depth(raw, MAX_MIME_DEPTH if max_mime_depth is None else max_mime_depth)
    with open_store(update) as store:
        options = store_options(store)  # the tokenizer the database was trained with
        tokens = tokenize(raw, options)
        value = score_message(store, tokens, settings)
        verdict = settings.verdict(value)
        if update and verdict != "Unsure":
            from nbayes.spam.feedback import tell

            tell(store, tokens, raw, verdict.lower(), learn=True, options=options)
    return verdict, value


def one_line(error: BaseException) -> str:
    """An error in one line: its message (a StoreError or MailParseError says what went
    wrong), or its type and message for anything unexpected."""
    from nbayes.spam.database import StoreError
    from nbayes.spam.parse import MailParseError

    text = " ".join(str(error).split())
    if isinstance(error, (StoreError, MailParseError, OSError)):
        return text or type(error).__name__
    return f"cannot classify this message: {type(error).__name__}: {text}"[:500]

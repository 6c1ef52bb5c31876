"""Training the token store from labelled mail, in batches, in the modes of
:mod:`nbayes.spam.learning`:

- ``unless-sure`` (the default): score each message against the store as it stands
  (the messages of this batch learnt before it included) and learn it unless it is
  already classified right with log-odds beyond ``certainty`` nats (100);
- ``everything``: learn every message;
- ``on-error``: train on or near error (TONE): learn a message only if its verdict is
  not its label (Unsure counts as an error) or, with a ``margin`` (the thick
  threshold), its score is within ``margin`` of the cutoff on its side: spam below
  ``spam_cutoff + margin``, ham above ``ham_cutoff - margin``;
- ``until-mature``: repeat ``on-error`` passes over all messages (``margin`` 0.05
  unless given) until a pass learns nothing or ``max_passes`` is reached (as
  bogominitrain does); a message may be learnt once per pass.

Messages of classes other than ham and spam (:mod:`nbayes.spam.classes`) are learnt
once in every mode (``until-mature``: in its first pass): the rules above judge the
two-class Fisher score, which says nothing of them (they are learnt in the batch's
transaction, after its ham and spam).

Each batch of ``batch_size`` messages (fewer where they hold more than
:data:`MAX_BATCH_TOKENS` tokens: a batch's memory stays bounded) is one transaction,
so an interrupted training keeps every completed batch. Messages that are not mail are reported and
skipped. With ``jobs`` other than 0, messages are parsed and tokenized in worker
processes (:mod:`nbayes.spam.parallel`); this process stays the only writer, and
the result is the same as a serial run's.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from nbayes.spam.classes import TWO_CLASSES, Message, check_class
from nbayes.spam.learning import (
    DEFAULT_CERTAINTY,
    MODES,
    RunningCounts,
    check_certainty,
    needs_learning,
)
from nbayes.spam.parallel import tokenize_items
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import ScoreSettings, token_index
from nbayes.spam.sources import MailItem, report_to_stderr
from nbayes.spam.store_options import record_options, store_options
from nbayes.spam.tokens import DEFAULT_OPTIONS, TokenOptions

if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store

#: The thick threshold of ``until-mature`` training unless one is given.
UNTIL_MATURE_MARGIN = 0.05


@dataclass
class TrainReport:
    """What a training run did: messages learnt per label (ham and spam always there,
    other classes where learnt), seen, skipped (not mail), and not learnt because the
    filter was already sure of them (``unless-sure``)."""

    learnt: dict[str, int] = field(default_factory=lambda: {"ham": 0, "spam": 0})
    seen: int = 0
    skipped: int = 0
    passes: int = 0
    sure: int = 0


def tokenized(
    labelled: Iterable[tuple[MailItem, str]],
    on_error: Callable[[str, str], None] = report_to_stderr,
    report: TrainReport | None = None,
    jobs: int | None = 0,
    options: TokenOptions = DEFAULT_OPTIONS,
) -> Iterator[Message]:
    """(token set, raw, label) for each parseable message, in order; the others are
    reported. ``jobs``: tokenizing worker processes (0: none; ``None``: one fewer
    than the CPUs); ``options``: the tokenizer's."""
    labelled = ((item, _checked(label)) for item, label in labelled)
    pairs = tokenize_items(labelled, jobs, raw_of=_raw_of_pair, options=options)
    for (item, label), tokens in pairs:
        if isinstance(tokens, MailParseError):
            on_error(item.name, f"skipped: {tokens}")
            if report is not None:
                report.skipped += 1
            continue
        if report is not None:
            report.seen += 1
        yield tokens, item.raw, label


def _checked(label: str) -> str:
    """``label`` if ham, spam or a class name :func:`check_class` allows (ValueError)."""
    return label if label in TWO_CLASSES else check_class(label)


def _raw_of_pair(pair: tuple[MailItem, str]) -> bytes:
    return pair[0].raw


def interleave(spam: Iterable[MailItem], ham: Iterable[MailItem]) -> Iterator[tuple[MailItem, str]]:
    """Spam and ham alternately, the rest of the longer source at the end."""
    return interleave_classes({"spam": spam, "ham": ham})


def interleave_classes(
    sources: Mapping[str, Iterable[MailItem]],
) -> Iterator[tuple[MailItem, str]]:
    """(message, class) pairs taken from each class's source in turn (in the mapping's
    order), the rest of the longer sources at the end; class names are checked
    (:func:`~nbayes.spam.classes.check_class`: ValueError) before any is read."""
    for label in sources:
        if label not in TWO_CLASSES:
            check_class(label)
    labelled = [zip(source, itertools.repeat(label)) for label, source in sources.items()]
    for group in itertools.zip_longest(*labelled):
        yield from (p for p in group if p is not None)


#: Tokens a training or scoring batch holds at most (the message that crosses the bound
#: included), besides its number of messages: what bounds the memory a batch takes
#: (about 0.2 KB a token: the token strings, their sets, the batch's index and counts),
#: whatever the size of the messages. 131,072 is about 250 SpamAssassin messages: a
#: fold of scenario G peaked at 27.5 MB traced against 113 MB with batches of 1,000, for
#: about 5 % more CPU (bench/NOTES.md, issue 28); SMS batches still hold 1,000 messages.
MAX_BATCH_TOKENS = 131_072

T = TypeVar("T")


def batched(
    items: Iterable[T],
    size: int,
    *,
    tokens_of: Callable[[T], int] | None = None,
    max_tokens: int | None = None,
) -> Iterator[list[T]]:
    """Lists of at most ``size`` items, in order; with ``tokens_of`` (an item's number of
    tokens) each list is closed as soon as it holds ``max_tokens`` tokens too (default
    :data:`MAX_BATCH_TOKENS`).

    >>> [len(b) for b in batched([{"a"}, {"b", "c"}, {"d"}], 10, tokens_of=len, max_tokens=2)]
    [2, 1]
    """
    iterator = iter(items)
    if tokens_of is None:
        while batch := list(itertools.islice(iterator, size)):
            yield batch
        return
    if max_tokens is None:
        max_tokens = MAX_BATCH_TOKENS
    batch, held = [], 0
    for item in iterator:
        batch.append(item)
        held += tokens_of(item)
        if len(batch) >= size or held >= max_tokens:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def message_tokens(message: Message) -> int:
    """The number of tokens of a (token set, raw, label) message: :func:`batched`'s
    ``tokens_of`` for training."""
    return len(message[0])


def train(
    store: Store,
    labelled: Iterable[tuple[MailItem, str]],
    *,
    mode: str = MODES[0],
    settings: ScoreSettings | None = None,
    batch_size: int = 1000,
    margin: float | None = None,
    certainty: float = DEFAULT_CERTAINTY,
    max_passes: int = 5,
    on_error: Callable[[str, str], None] = report_to_stderr,
    progress: Callable[[int], None] | None = None,
    jobs: int | None = 0,
    options: TokenOptions | None = None,
) -> TrainReport:
    """Train ``store`` on (message, class) pairs, the class ``"spam"``, ``"ham"`` or any
    other class name (:func:`~nbayes.spam.classes.check_class`); see the module docstring.

    ``progress(n)`` is called after each batch with the number of messages done;
    ``jobs`` is the number of tokenizing worker processes (0: none; ``None``: one
    fewer than the CPUs). Messages are tokenized with the options the store was
    trained with (:mod:`nbayes.spam.store_options`); ``options`` chooses them for a
    new store (:class:`StoreError` if they differ from a trained store's), and they are
    recorded in the store with the first batch.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    certainty = check_certainty(certainty)
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    settings = settings or ScoreSettings()
    options = store_options(store, options)
    report = TrainReport()
    messages = tokenized(labelled, on_error, report, jobs, options)
    if mode == "until-mature":
        messages = list(messages)
    passes = max_passes if mode == "until-mature" else 1
    if margin is None:
        margin = UNTIL_MATURE_MARGIN if mode == "until-mature" else 0.0
    if not 0 <= margin < 1:
        raise ValueError(f"margin must be in [0, 1), got {margin}")
    if mode in ("everything", "unless-sure"):
        report.passes = 1
        rule = None if mode == "everything" else _UnlessSure(store, settings, certainty, report)
        _learn_batches(store, messages, batch_size, options, report, progress, rule)
        return report
    for number in range(passes):
        report.passes += 1
        learnt_in_pass = 0
        for batch in batched(messages, batch_size, tokens_of=message_tokens):
            # other classes' messages: learnt in the first pass only (no error decides them)
            chosen = _errors(store, batch, settings, margin, others=number == 0)
            with store.transaction():
                record_options(store, options)
                store.add(chosen)
            for _, _, label in chosen:
                report.learnt[label] = report.learnt.get(label, 0) + 1
            learnt_in_pass += sum(label in TWO_CLASSES for _, _, label in chosen)
            if progress is not None:
                progress(len(batch))
        if mode != "until-mature" or learnt_in_pass == 0:
            break
    return report


def _learn_batches(
    store: Store,
    messages: Iterable[Message],
    batch_size: int,
    options: TokenOptions,
    report: TrainReport,
    progress: Callable[[int], None] | None,
    rule: _UnlessSure | None,
) -> None:
    """Learn every message (``rule`` None), or those ``rule`` chooses, a batch per
    transaction, written by a :class:`_Writer` thread while this one tokenizes the next
    batch and counts its tokens. Only the labels of the batch in flight are kept (for
    the report), not its token sets. ``rule`` reads the store, so it waits for the
    batch in flight to be written first."""
    done: tuple[_Writer, list[str]] | None = None
    try:
        for batch in batched(messages, batch_size, tokens_of=message_tokens):
            read = len(batch)
            if rule is not None:
                if done is not None:
                    _account(*done, report, progress)
                    done = None
                batch = rule.chosen(batch)
            statements = store.changes(batch)
            if done is not None:
                _account(*done, report, progress)
            done = (_Writer(store, options, statements), [label for _, _, label in batch])
            if read != len(batch) and progress is not None:
                progress(read - len(batch))
            del batch, statements  # the writer holds the statements until they have run
        if done is not None:
            _account(*done, report, progress)
            done = None
    finally:
        if done is not None:  # an error here: the batch in flight commits or rolls back
            done[0].join()


class _UnlessSure:
    """The ``unless-sure`` rule over a store: the messages of a batch it learns."""

    def __init__(
        self, store: Store, settings: ScoreSettings, certainty: float, report: TrainReport
    ) -> None:
        self.store, self.settings, self.certainty, self.report = store, settings, certainty, report

    def chosen(self, batch: list[Message]) -> list[Message]:
        """The messages of ``batch`` to learn, in order: each scored against the store's
        counts plus those of the batch's messages chosen before it."""
        indices, indptr, columns = token_index([tokens for tokens, _, _ in batch])
        counts, totals = self.store.read_lookup(
            columns, vocabulary=self.settings.method == "naive-bayes"
        )
        running = RunningCounts(counts, totals)
        chosen = []
        for i, message in enumerate(batch):
            if message[2] not in TWO_CLASSES:  # another class: always learnt
                chosen.append(message)
                continue
            ids = indices[indptr[i] : indptr[i + 1]]
            _, learnt = running.learn_unless_sure(
                ids, int(message[2] == "spam"), self.settings, self.certainty
            )
            if learnt:
                chosen.append(message)
        self.report.sure += len(batch) - len(chosen)
        return chosen


def _account(
    writer: _Writer,
    labels: list[str],
    report: TrainReport,
    progress: Callable[[int], None] | None,
) -> None:
    """Wait for a batch's transaction (raising its error), then count its messages
    (their ``labels``) as learnt."""
    writer.wait()
    for label in labels:
        report.learnt[label] = report.learnt.get(label, 0) + 1
    if progress is not None:
        progress(len(labels))


class _Writer(threading.Thread):
    """One batch's transaction (``record_options`` and the prepared statements) run in a
    thread of its own, started at once.

    SQLite releases the GIL while it runs a statement, so the caller tokenizes and counts
    the next batch meanwhile: with the JSON upserts of a SpamAssassin batch about a third
    of training's CPU, this is most of what a second core can take from the caller. One
    batch at most is in flight (the caller waits before starting the next writer), so
    batches commit in order, one transaction each, as in a serial run; the connection is
    used by one thread at a time. A thread per batch, not a pool: no thread is left
    between batches, when the tokenizer may fork its workers."""

    def __init__(self, store: Store, options: TokenOptions, statements: list) -> None:
        super().__init__(name="nbayes-spam-store-writer", daemon=True)
        self.store, self.options = store, options
        self.statements: list | None = statements
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            with self.store.transaction():
                record_options(self.store, self.options)
                self.store.apply(self.statements or [])
        except BaseException as error:  # handed to the caller by wait()
            self.error = error
        finally:
            self.statements = None  # the payloads (megabytes) freed once written

    def wait(self) -> None:
        """Join the thread; raise the error its transaction raised, if any."""
        self.join()
        if self.error is not None:
            raise self.error


def _errors(
    store: Store, batch: list[Message], settings: ScoreSettings, margin: float,
    *, others: bool = True,
) -> list[Message]:  # fmt: skip
    """The messages of ``batch`` scored wrongly, each scored against the store's counts
    (read once, before the batch) plus those of the batch's messages chosen before it;
    with ``others``, every message of a class other than ham and spam too."""
    indices, indptr, columns = token_index([tokens for tokens, _, _ in batch])
    counts, totals = store.read_lookup(columns, vocabulary=settings.method == "naive-bayes")
    running = RunningCounts(counts, totals)
    chosen = []
    for i, message in enumerate(batch):
        if message[2] not in TWO_CLASSES:  # another class: learnt where ``others``
            if others:
                chosen.append(message)
            continue
        ids = indices[indptr[i] : indptr[i + 1]]
        is_spam = message[2] == "spam"
        score = running.score(ids, settings, log_odds=False)
        if needs_learning(score, is_spam, settings, margin):
            running.learn(ids, int(is_spam))
            chosen.append(message)
    return chosen

"""The worker-process tokenizer of the spam filter against the serial one: order,
errors, CLI output, no orphans; both engines (forked children sharing a window, and
the process pool kept for platforms without ``os.fork``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from spam_mail import corpus, corpus_dirs

from nbayes.cli import main
from nbayes.spam import parallel
from nbayes.spam.parallel import resolve_jobs, tokenize_items
from nbayes.spam.parse import (
    MailParseError,
)
from nbayes.spam.sources import MailItem

ENGINES = [
    pytest.param(True, id="forked", marks=pytest.mark.skipif(not hasattr(os, "fork"), reason="")),
    pytest.param(False, id="pool"),
]


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    """Each test run with forked children and with the process pool."""
    monkeypatch.setattr(parallel, "os_fork_ok", request.param)
    return request.param


def mixed_items(n: int) -> list[MailItem]:
    messages, _ = corpus(n // 2, n - n // 2)
    items = [MailItem(f"m{i}", raw) for i, raw in enumerate(messages)]
    items[5] = MailItem("binary", bytes(range(256)) * 4)
    items[17] = MailItem("empty", b"  \n")
    # a NUL inside a token (from an encoded file name): shipped back as a set, not joined
    items[30] = MailItem("nul", b"Content-Type: text/plain; name==?utf-8?q?a=00b.txt?=\n\nx\n")
    return items


def child_pids() -> set[int]:
    """This process's child processes, zombies (exited, not yet waited for) included;
    empty where there is no ``/proc`` to read them from."""
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        pids.update(map(int, task.read_text().split()))
    return pids


@pytest.fixture
def no_child_left():
    """Asserts after the test that it left no child process behind, not even one to be
    waited for (other tests' children may still be there)."""
    before = child_pids()
    yield
    if sys.platform.startswith("linux"):
        assert child_pids() <= before


def assert_serial_results(results, items):
    """``results`` are the serial tokenizer's, for the same items in the same order, and
    each token set iterates in the serial set's order (a message's Fisher sums then add
    the same floats in the same order: scores equal to the last bit)."""
    serial = list(tokenize_items(items, jobs=0))
    assert [item for item, _ in results] == items
    assert [t for _, t in results if not isinstance(t, MailParseError)] == [
        t for _, t in serial if not isinstance(t, MailParseError)
    ]
    assert [list(t) for _, t in results if not isinstance(t, MailParseError)] == [
        list(t) for _, t in serial if not isinstance(t, MailParseError)
    ]
    errors = {item.name: str(t) for item, t in results if isinstance(t, MailParseError)}
    assert errors == {item.name: str(t) for item, t in serial if isinstance(t, MailParseError)}


@pytest.mark.usefixtures("no_child_left")
def test_workers_give_the_serial_results_in_order(engine):
    items = mixed_items(60)
    results = list(tokenize_items(items, jobs=2, chunk_size=4, pool_threshold=0, pool_min_ahead=0))
    assert_serial_results(results, items)
    by_name = {item.name: t for item, t in results}
    assert {name for name, t in by_name.items() if isinstance(t, MailParseError)} == {
        "binary",
        "empty",
    }
    assert "attach:name:a\0b.txt" in by_name["nul"]


@pytest.mark.usefixtures("no_child_left")
def test_the_caller_tokenizes_chunks_no_worker_has_started(engine, monkeypatch):
    """While the head chunk's worker is busy, the calling process takes chunks no
    worker has started itself; the results are still the serial ones, in order."""
    parent, in_parent = os.getpid(), []
    tokenize_here = parallel._tokenize_or_error

    def counting(raw):
        if os.getpid() == parent:
            in_parent.append(raw)
            time.sleep(0.02)  # so a worker slow to start (a loaded machine) still takes some
        return tokenize_here(raw)

    monkeypatch.setattr(parallel, "_tokenize_or_error", counting)
    items = mixed_items(300)
    results = list(tokenize_items(items, jobs=1, chunk_size=4, pool_threshold=0, pool_min_ahead=0))
    assert len(in_parent) > 8  # more than the head tokenized before the pool starts
    assert len(in_parent) < len(items)  # and the worker did some
    assert_serial_results(results, items)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked children only")
@pytest.mark.usefixtures("no_child_left")
def test_forked_windows_follow_one_another(monkeypatch):
    """Many small windows (the next one forked while the last chunks of the one before
    are yielded): the serial results, in order, and every child reaped."""
    monkeypatch.setattr(parallel, "MAX_PENDING_MESSAGES", 7)
    items = mixed_items(100)
    results = list(tokenize_items(items, jobs=2, chunk_size=2, pool_threshold=0, pool_min_ahead=0))
    assert_serial_results(results, items)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked children only")
@pytest.mark.usefixtures("no_child_left")
def test_chunks_of_a_child_that_died_are_tokenized_by_the_caller(monkeypatch, tmp_path):
    parent = os.getpid()
    tokenize_here = parallel._tokenize_or_error
    calls_here = 0
    head = 2 * 2  # the caller tokenizes 2 * chunk_size messages before it forks

    def dying(raw):
        nonlocal calls_here
        if os.getpid() != parent:  # a child dies in the middle of the first chunk it took
            (tmp_path / str(os.getpid())).touch()
            os._exit(3)
        calls_here += 1
        if calls_here > head:  # the children exist: let one take a chunk before we take all
            deadline = time.monotonic() + 30
            while not any(tmp_path.iterdir()) and time.monotonic() < deadline:
                time.sleep(0.001)
        return tokenize_here(raw)

    monkeypatch.setattr(parallel, "_tokenize_or_error", dying)
    items = mixed_items(80)
    results = list(tokenize_items(items, jobs=2, chunk_size=2, pool_threshold=0, pool_min_ahead=0))
    assert len(list(tmp_path.iterdir())) >= 1  # a child did die with a chunk taken
    monkeypatch.setattr(parallel, "_tokenize_or_error", tokenize_here)
    assert_serial_results(results, items)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_abandoned_run_leaves_no_child(monkeypatch):
    monkeypatch.setattr(parallel, "MAX_PENDING_MESSAGES", 20)
    before = child_pids()
    results = tokenize_items(
        mixed_items(100), jobs=2, chunk_size=2, pool_threshold=0, pool_min_ahead=0
    )
    for _ in range(15):
        next(results)
    assert len(child_pids() - before) >= 2  # a window's children, running or exited
    results.close()
    assert child_pids() <= before


@pytest.mark.parametrize(
    "threshold, min_ahead, pooled",
    [(None, 0, False), (0.0, 0, True), (0.0, 50, True), (0.0, 200, False)],
)
def test_a_pool_only_where_tokenizing_costs_more_than_shipping(
    engine, monkeypatch, threshold, min_ahead, pooled
):
    """No workers for short messages, nor for a batch too small to pay for starting
    them (100 messages: the head of 8, then 92, fewer than 200)."""
    started = []
    for name in ("_forked", "_pooled"):
        start = getattr(parallel, name)
        monkeypatch.setattr(
            parallel, name, lambda *args, start=start: started.append(1) or start(*args)
        )
    items = mixed_items(100)  # short messages: far below POOL_THRESHOLD each
    results = tokenize_items(
        items, jobs=2, chunk_size=4, pool_threshold=threshold, pool_min_ahead=min_ahead
    )
    first = [next(results) for _ in range(20)]  # the head (8), then pooled or not
    assert bool(started) == pooled
    assert [item for item, _ in first + list(results)] == items


def test_jobs_are_checked():
    assert resolve_jobs(None) == parallel.available_cpus() - 1
    assert resolve_jobs(0) == 0 and resolve_jobs(3) == 3
    with pytest.raises(ValueError, match="jobs"):
        resolve_jobs(-1)
    with pytest.raises(ValueError, match="chunk_size"):
        list(tokenize_items([], chunk_size=0))


def cli(*args):
    result = CliRunner().invoke(main, ["spam", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def test_cli_with_workers_trains_and_scores_as_one_process(engine, tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "POOL_THRESHOLD", 0.0)  # a pool even for short mail
    monkeypatch.setattr(parallel, "POOL_MIN_AHEAD", 0)  # and for a small batch
    monkeypatch.setattr(parallel, "EXECUTOR_MIN_AHEAD", 0)
    corpus_dirs(tmp_path, 50, 50)  # > 64 messages: the pool is used
    (tmp_path / "ham" / "junk").write_bytes(bytes(range(256)) * 4)
    dumps, scores = [], []
    for jobs in (0, 2):
        db = tmp_path / f"j{jobs}.db"
        out = cli("train", "--db", db, "--jobs", jobs, "--spam", tmp_path / "spam", "--ham",
                  tmp_path / "ham")  # fmt: skip
        assert "learnt 50 spam and 50 ham (100 read, 1 skipped" in out
        dumps.append(cli("dump", "--db", db))
        scores.append(cli("score", "--db", db, "--jobs", jobs, tmp_path / "spam", tmp_path / "ham"))
    assert dumps[0] == dumps[1]
    assert scores[0] == scores[1] and len(scores[0].splitlines()) == 101  # the skip line too


ORPHAN = textwrap.dedent(
    """
    import glob, itertools, os, sys
    from nbayes.spam import parallel
    from nbayes.spam.sources import MailItem
    parallel.os_fork_ok = sys.argv[1] == "forked"
    items = (MailItem(str(i), b"Subject: x\\n\\nbody\\n") for i in itertools.count())
    results = parallel.tokenize_items(
        items, jobs=2, chunk_size=2, pool_threshold=0, pool_min_ahead=0
    )
    for _ in range(5):  # past the head tokenized in this process
        next(results)
    children = []
    for task in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        children += open(task).read().split()
    print(*children, flush=True)
    sys.stdin.read()
    """
)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("engine_name", ["forked", "pool"])
def test_workers_exit_when_the_parent_is_killed(engine_name):
    parent = subprocess.Popen(
        [sys.executable, "-c", ORPHAN, engine_name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        workers = [int(p) for p in parent.stdout.readline().split()]
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    assert len(workers) >= 2  # the pool's two workers, or a window's two children (or more)
    deadline = time.monotonic() + 10
    while any(map(alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:  # do not leak them even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []

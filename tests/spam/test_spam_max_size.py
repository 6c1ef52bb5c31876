"""``--max-size``: ``classify`` and ``score`` take at most that many bytes of a message.
A larger one is never held whole: ``classify -p`` streams it through unchanged and
unscanned (spamc's behaviour; ``nbayes spam classify -p < /dev/zero`` grew past 5 GB in
6 s), ``score`` names it on stderr and skips it."""

from __future__ import annotations

import hashlib
import mailbox
import resource
import subprocess
import threading

import pytest
from spam_mail import corpus
from spamd_clients import NBAYES

from nbayes.spam.limits import DEFAULT_MAX_SIZE, read_at_most

SPAM = corpus(41, 0)[0][-1]
#: Address space for the classify process: enough for Python and nbayes, far from the
#: gigabyte streamed through it.
ADDRESS_SPACE = 768 * 2**20


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _stream_through(args: list, chunks, timeout: float = 120) -> tuple[int, str, str, int, str]:
    """Run ``args`` with an address-space limit, feeding ``chunks`` to its stdin from a
    thread; (exit status, sha256 of what went in, of what came out, bytes out, stderr)."""
    process = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=_limited,
    )  # fmt: skip
    sent = hashlib.sha256()

    def feed() -> None:
        try:
            for chunk in chunks:
                sent.update(chunk)
                process.stdin.write(chunk)
        except BrokenPipeError:
            pass
        finally:
            process.stdin.close()

    errors: list[bytes] = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)
    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    reader.start()
    received, size = hashlib.sha256(), 0
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    try:
        while chunk := process.stdout.read(1 << 20):
            received.update(chunk)
            size += len(chunk)
        status = process.wait()
    finally:
        timer.cancel()
    feeder.join(10)
    reader.join(10)
    return status, sent.hexdigest(), received.hexdigest(), size, errors[0].decode()


def _huge_message(total: int):
    """A mail message of ``total`` bytes, made a megabyte at a time."""
    yield SPAM
    line = b"word " * 15 + b"\n"
    block = line * ((1 << 20) // len(line))
    left = total - len(SPAM)
    while left > 0:
        yield block[:left]
        left -= len(block)


def test_classify_passthrough_streams_a_gigabyte_in_bounded_memory(db):
    total = 2**30
    status, sent, received, size, stderr = _stream_through(
        [NBAYES, "spam", "classify", "-p", "--db", db], _huge_message(total)
    )
    assert status == 3, stderr
    assert size == total and received == sent  # whole, byte for byte, unmarked
    assert f"message over {DEFAULT_MAX_SIZE} bytes (--max-size)" in stderr
    assert "Traceback" not in stderr


def test_classify_without_passthrough_reads_no_further(db):
    status, _, _, size, stderr = _stream_through(
        [NBAYES, "spam", "classify", "--db", db, "--max-size", "1000"], _huge_message(2**26)
    )
    assert status == 3 and size == 0 and "over 1000 bytes" in stderr


def test_classify_at_the_limit_is_scored_and_one_byte_over_is_not(db):
    for max_size, scored in ((len(SPAM), True), (len(SPAM) - 1, False)):
        result = subprocess.run(
            [NBAYES, "spam", "classify", "-p", "--db", db, "--max-size", str(max_size)],
            input=SPAM, capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        assert (result.returncode == 0) is scored, result.stderr
        assert (b"X-Nbayes-Spam: Spam" in result.stdout) is scored
        if not scored:
            assert result.stdout == SPAM


def test_score_skips_and_names_the_messages_over_max_size(db, tmp_path):
    small, big = tmp_path / "small.eml", tmp_path / "big.eml"
    small.write_bytes(SPAM)
    big.write_bytes(SPAM + b"x" * 5000 + b"\n")
    box = mailbox.mbox(tmp_path / "box")
    box.add(SPAM)
    box.add(SPAM + b"y" * 5000 + b"\n")
    box.flush()
    box.close()
    result = subprocess.run(
        [NBAYES, "spam", "score", "--db", db, "--max-size", "3000", small, big, tmp_path / "box"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    scored = [line.split("\t")[0] for line in result.stdout.splitlines()]
    assert scored == [str(small), f"{tmp_path / 'box'}:0"]
    assert f"{big}: skipped: over 3000 bytes (--max-size)" in result.stderr
    assert f"{tmp_path / 'box'}:1: skipped: over 3000 bytes" in result.stderr


@pytest.mark.parametrize("size", [0, 1, 4, 5, 6, 70_000, 200_000])
def test_read_at_most(size):
    import io

    data = bytes(range(256)) * (size // 256 + 1)
    data = data[:size]
    stream = io.BytesIO(data)
    got, whole = read_at_most(stream, 5)
    assert whole == (size <= 5) and got == data[:6]
    assert got + stream.read() == data  # nothing read past what it returned

"""Scenario K: the spamd server (``nbayes spam serve``) under hostile load.

    python bench/run.py --only K

One server process (default limits), a store trained on a SpamAssassin subset (every
tenth message; ``--smoke``: every 80th), and ``N`` well-behaved clients: threads of
this process each sending CHECK requests one after another on fresh TCP connections
from 127.0.0.1 (as spamc does, one connection a request), messages taken in turn from
the subset, each reply read whole. Two conditions alternate, ``repeats`` rounds each
(after one warm-up round of each), ``seconds`` of load a round:

- **calm**: the well-behaved clients alone;
- **hostile**: the same, while a separate process (so that it takes no time of this
  one's interpreter) runs ``M`` hostile clients from 127.0.0.2, another client to the
  server: slow senders (a request's bytes one every half second, reconnecting when
  cut), idle connectors (connect, send nothing, reconnect when closed) and flooders
  (CHECKs of a 200 KB message back to back, never pausing).

Rows: the well-behaved clients' CHECK latency at the 50th, 95th and 99th percentile of
each round (the median over rounds), and their throughput as milliseconds per CHECK
(all clients together: the round's seconds over its answered CHECKs; the rate column
gives CHECKs a second). The "nbayes" column is the hostile condition, the rival column
the calm one, measured in the same run; the floor is a PING's latency (the same
clients, calm, a quarter of the time: a round trip with no scoring). Peak MB: the
server's resident set at the end of a round, the largest of the condition's rounds
(``/proc``). Targets: hostile clients cost the well-behaved ones at most 3x their calm
p50 and throughput, 4x their p95 and p99 (they share two CPUs with the flood, which
the server serves in turn with them, so some cost is the flood's fair share, not
starvation). Every well-behaved request must be answered EX_OK: failures are counted
in the notes.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Measurement
from bench.registry import Case, Dataset, Measured, register
from bench.spamd_load import HOSTILE_ADDRESS, exchange, spamd_request

ROOT = Path(__file__).resolve().parents[1]
NBAYES = str(Path(sys.executable).with_name("nbayes"))


# ------------------------------------------------------------------------- the scenario


def _serve(db: Path) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(
        [NBAYES, "spam", "serve", "--db", str(db), "--listen", "127.0.0.1:0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    line = process.stderr.readline()
    if "listening on" not in line:
        raise RuntimeError(f"nbayes spam serve did not start: {line}")
    threading.Thread(target=process.stderr.read, daemon=True).start()  # never blocks it
    return process, int(line.rsplit(":", 1)[1])


def _load(port: int, clients: int, seconds: float, requests: list[bytes]) -> tuple[list, int, int]:
    """``clients`` threads sending ``requests`` in turn for ``seconds``: (latencies in
    seconds of the EX_OK replies, their number, the failures)."""
    latencies: list[float] = []
    failures = [0]
    end = time.monotonic() + seconds

    def client(offset: int) -> None:
        i = offset
        while time.monotonic() < end:
            raw = requests[i % len(requests)]
            i += clients
            started = time.perf_counter()
            try:
                reply = exchange(port, raw)
            except OSError:
                reply = b""
            if reply.startswith(b"SPAMD/1.5 0 "):
                latencies.append(time.perf_counter() - started)
            else:
                failures[0] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, len(latencies), failures[0]


def _resident_bytes(pid: int) -> int:
    """The server's resident set now (Linux ``/proc``; 0 elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return 1024 * int(line.split()[1])
    except OSError:
        pass
    return 0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else 0.0


def _store(files: list[Path], labels, path: Path) -> None:
    from nbayes.spam.store import TokenStore
    from nbayes.spam.tokens import tokenize

    with TokenStore(path) as store:
        batch = []
        for file, label in zip(files, labels, strict=True):
            raw = file.read_bytes()
            batch.append((tokenize(raw), raw, "spam" if label else "ham"))
        store.learn(batch)


@register("K", "The spamd server under hostile load: well-behaved clients with and without")
def spamd(quick: bool) -> Iterator[Dataset]:
    from bench import spam_data

    if not (spam_data.DATA / "spamassassin").is_dir():
        yield Dataset("SpamAssassin", None, [], notes=["Not run: SpamAssassin not found."])
        return
    files, y = spam_data.spamassassin()
    step = 80 if quick else 10
    files, y = files[::step], y[::step]
    clients = 8
    slow, idle, flood = (4, 4, 1) if quick else (64, 128, 4)
    seconds = 0.5 if quick else 5.0
    requests = [spamd_request("CHECK", f.read_bytes()[:400_000]) for f in files[:200]]
    big = max((f for f in files), key=lambda f: f.stat().st_size)
    notes: list[str] = []

    def measure(repeats: int) -> Measured:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "spam.db"
            _store(files, y, db)
            flood_message = Path(tmp) / "flood.eml"
            flood_message.write_bytes((big.read_bytes() * 40)[:200_000])
            server, port = _serve(db)
            try:
                return _rounds(port, server.pid, flood_message, repeats)
            finally:
                server.terminate()
                server.wait(30)

    def _rounds(port: int, pid: int, flood_message: Path, repeats: int) -> Measured:
        got: dict[str, dict[str, list[float]]] = {
            c: {"p50": [], "p95": [], "p99": [], "per": []} for c in ("calm", "hostile")
        }
        pings = {"p50": [], "p95": [], "p99": [], "per": []}
        failed = {"calm": 0, "hostile": 0}
        resident = {"calm": 0, "hostile": 0}
        answered = {"calm": 0, "hostile": 0}
        flood_counts = [0, 0]
        for repeat in range(1 + repeats):
            order = ("calm", "hostile") if repeat % 2 == 0 else ("hostile", "calm")
            for condition in order:
                hostile = None
                if condition == "hostile":
                    hostile = subprocess.Popen(
                        [sys.executable, "-c",
                         "import sys; sys.path.insert(0, sys.argv[1]); "
                         "from bench.spamd_load import hostile_main as h; "
                         "h(*map(int, sys.argv[2:6]), sys.argv[6])",
                         str(ROOT), str(port), str(slow), str(idle), str(flood),
                         str(flood_message)],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                    )  # fmt: skip
                    hostile.stdout.readline()
                    time.sleep(1.0)  # connected, trickling, flooding
                try:
                    latencies, n, failures = _load(port, clients, seconds, requests)
                finally:
                    if hostile is not None:
                        out, _ = hostile.communicate("", timeout=60)
                        ok, total = map(int, out.split()[-2:])
                if repeat == 0:
                    continue  # the warm-up round
                if hostile is not None:
                    flood_counts[0] += ok
                    flood_counts[1] += total
                resident[condition] = max(resident[condition], _resident_bytes(pid))
                failed[condition] += failures
                answered[condition] += n
                for q in (50, 95, 99):
                    got[condition][f"p{q}"].append(_percentile(latencies, q))
                got[condition]["per"].append(seconds / max(n, 1))
            if repeat:
                latencies, n, _ = _load(port, clients, seconds / 4, [spamd_request("PING")])
                for q in (50, 95, 99):
                    pings[f"p{q}"].append(_percentile(latencies, q))
                pings["per"].append(seconds / 4 / max(n, 1))

        def m(values: list[float], peak: int = 0) -> Measurement:
            return Measurement(statistics.median(values), min(values), peak, values)

        rows: Measured = []
        for key, task, target, items in (
            ("p50", "CHECK latency, 50th percentile", 3.0, 0),
            ("p95", "CHECK latency, 95th percentile", 4.0, 0),
            ("p99", "CHECK latency, 99th percentile", 4.0, 0),
            ("per", "throughput: ms per CHECK, all clients", 3.0, 1),
        ):
            case = Case(task, None, None, None, "PING (calm)", target, None, items=items,
                        compare_memory=False, same_result=False)  # fmt: skip
            measured = {"nbayes": m(got["hostile"][key], resident["hostile"]),
                        "sklearn": m(got["calm"][key], resident["calm"]),
                        "floor": m(pings[key])}  # fmt: skip
            rows.append((case, measured))
        notes.extend([
            f"{clients} well-behaved clients from 127.0.0.1 (CHECK on a fresh connection "
            f"each, SpamAssassin messages); hostile: {slow} slow senders (a byte every "
            f"0.5 s), {idle} idle connectors, {flood} flooders (200 KB CHECKs back to "
            f"back), all from {HOSTILE_ADDRESS}; {seconds:g} s a round, {repeats} rounds "
            "of each condition after a warm-up; server defaults "
            "(8 workers, 512 connections, 256 a client, --timeout 30).",
            f"Well-behaved CHECKs answered EX_OK: calm {answered['calm']:,} "
            f"(failed {failed['calm']}), hostile {answered['hostile']:,} "
            f"(failed {failed['hostile']}). The flood's own CHECKs meanwhile: "
            f"{flood_counts[0]:,} answered EX_OK of {flood_counts[1]:,}.",
        ])  # fmt: skip
        return rows

    yield Dataset(
        f"{clients} well-behaved clients; hostile: {slow} slow senders, {idle} idle "
        f"connectors, {flood} flooders",
        None,
        [],
        rival="no hostile clients",
        notes=notes,
        unit="CHECK",
        measure=measure,
    )

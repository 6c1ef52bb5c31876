"""The commands docs/spam.md marks *(tested)*, run as written (in bash, with the
installed ``nbayes`` and the real ``spamc``); each must appear verbatim in the page."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from spam_mail import corpus
from test_spam_serve import spamc_binary

from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize

DOC = (ROOT / "docs" / "spam.md").read_text()
PIPE = "nbayes spam classify --passthrough --exit-zero < message.eml > marked.eml"
SERVE = "nbayes spam serve --listen 127.0.0.1:7830 --allow-tell &"
CHECK = "spamc -p 7830 -c < message.eml"
PROCESS = "spamc -p 7830 < message.eml > marked.eml"
LEARN = "spamc -p 7830 -L spam < missed-spam.eml"


@pytest.mark.parametrize("command", [PIPE, SERVE, CHECK, PROCESS, LEARN])
def test_the_commands_are_in_the_page(command):
    assert f"\n{command}\n" in DOC


@pytest.fixture
def mail_folder(tmp_path):
    messages, labels = corpus(40, 40)
    with TokenStore(tmp_path / "spam.db") as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
    (tmp_path / "message.eml").write_bytes(corpus(41, 0)[0][-1])  # a spam not trained on
    (tmp_path / "missed-spam.eml").write_bytes(b"Subject: zork\n\nquux frobnicate zork\n")
    env = dict(os.environ, NBAYES_SPAM_DB=str(tmp_path / "spam.db"))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return tmp_path, env


def bash(script: str, folder: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip


def test_the_procmail_style_pipe(mail_folder):
    folder, env = mail_folder
    result = bash(PIPE, folder, env)
    assert result.returncode == 0, result.stderr
    marked = (folder / "marked.eml").read_bytes()
    assert b"\nX-Nbayes-Spam: Spam, score=" in marked
    assert marked.endswith((folder / "message.eml").read_bytes().partition(b"\n\n")[2])


def test_the_spamc_round_trip_and_learning(mail_folder):
    spamc_binary()
    folder, env = mail_folder
    with socket.socket() as probe:  # a free port in place of the page's 7830
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    script = f"""
        {SERVE.replace("&", "2> serve.log &")}
        server=$!
        for i in $(seq 600); do
            grep -q "listening on" serve.log 2>/dev/null && break; sleep 0.1
        done
        {CHECK}; echo "check exit $?"
        {PROCESS}; echo "process exit $?"
        {LEARN}; echo "learn exit $?"
        kill $server; wait $server; echo "server exit $?"
    """.replace("7830", port)
    result = bash(script, folder, env)
    lines = result.stdout.splitlines()
    points, threshold = map(float, lines[0].split("/"))
    assert points >= threshold == 9.0 and lines[1] == "check exit 1", result.stdout
    assert lines[2:] == ["process exit 0", "Message successfully un/learned", "learn exit 0",
                         "server exit 0"], (result.stdout, result.stderr)  # fmt: skip
    assert b"\nX-Spam-Flag: YES\n" in (folder / "marked.eml").read_bytes()
    with TokenStore(folder / "spam.db", readonly=True) as store:
        assert store.totals().messages == (40, 41)

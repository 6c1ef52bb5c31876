"""Lazy imports: public names load on first use, and ``nbayes spam classify`` (run once
per delivered message by a mail server) imports neither SciPy nor scikit-learn nor the
other commands' libraries."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from spam_mail import corpus

import nbayes
import nbayes.spam
from nbayes.spam import MailItem, TokenStore, interleave, train


def fresh_python(code: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter (nothing imported yet)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], input=stdin, capture_output=True
    )


@pytest.mark.parametrize("package", [nbayes, nbayes.spam], ids=lambda p: p.__name__)
def test_every_public_name_resolves_and_is_listed(package):
    for name in package.__all__:
        assert getattr(package, name).__name__ == name
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        package.no_such_name  # noqa: B018


def test_a_submodule_import_does_not_hide_the_function_of_its_name():
    # nbayes.merge and nbayes.spam.train are both modules and exported functions.
    result = fresh_python("""
        import nbayes.merge, nbayes.spam.train
        import nbayes, nbayes.spam
        from nbayes.merge import merge
        print(nbayes.merge is merge, callable(nbayes.spam.train), nbayes.spam.train.__module__)
    """)
    assert result.stdout.split() == [b"True", b"True", b"nbayes.spam.train"], result.stderr


def test_classify_imports_no_heavy_library(tmp_path):
    messages, labels = corpus(20, 20)
    db = tmp_path / "t.db"
    items = {"spam": [], "ham": []}
    for i, (raw, label) in enumerate(zip(messages, labels, strict=True)):
        items[label].append(MailItem(str(i), raw))
    with TokenStore(db) as store:
        train(store, interleave(items["spam"], items["ham"]))
    result = fresh_python(
        f"""
        import sys
        from nbayes.cli import main
        try:
            main(["spam", "classify", "--db", {str(db)!r}])
        except SystemExit as exit:
            heavy = ("scipy", "sklearn", "pandas", "matplotlib", "numba")
            heavy = [m for m in heavy if m in sys.modules]
            print("exit", exit.code, "heavy", heavy, file=sys.stderr)
        """,
        stdin=corpus(30, 0)[0][-1],
    )
    assert result.stderr.decode().strip().splitlines()[-1] == "exit 0 heavy []", result.stderr
    assert result.stdout.decode().startswith("Spam\t")

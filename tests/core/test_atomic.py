"""Atomic writes (nbayes.core.atomic): all or nothing, with ordinary permissions."""

from __future__ import annotations

import os
import stat

import pytest

from nbayes.core.atomic import atomic_file


def test_replaces_the_target_only_when_done(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with atomic_file(target) as handle:
        handle.write(b"new")
        assert target.read_bytes() == b"old"  # nothing seen half-written
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_an_error_leaves_the_target_and_no_temporary_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("kept")
    with pytest.raises(RuntimeError), atomic_file(target, "w", encoding="utf-8") as handle:
        handle.write("lost")
        raise RuntimeError("disk on fire")
    assert target.read_text() == "kept"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_permissions_are_those_open_would_give(tmp_path):
    """Not the temporary file's 0600: others can read a model or predictions file
    wherever the umask lets them, as with any file the user writes."""
    old = os.umask(0o022)
    try:
        with atomic_file(tmp_path / "m.nbm") as handle:
            handle.write(b"x")
        with open(tmp_path / "plain", "wb") as handle:
            handle.write(b"x")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "m.nbm").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o644


def test_replacing_keeps_the_files_permissions_and_a_symbolic_link(tmp_path):
    """As writing in place would: a private model stays private, a link stays a link
    (the file it names is what changes)."""
    real = tmp_path / "real.nbm"
    real.write_bytes(b"old")
    real.chmod(0o600)
    link = tmp_path / "link.nbm"
    link.symlink_to(real.name)
    with atomic_file(link) as handle:
        handle.write(b"via the link")
    assert link.is_symlink() and real.read_bytes() == b"via the link"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    with atomic_file(real) as handle:
        handle.write(b"direct")
    assert stat.S_IMODE(real.stat().st_mode) == 0o600 and link.read_bytes() == b"direct"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.nbm", "real.nbm"]


def test_errors_name_the_target_never_the_temporary_file(tmp_path):
    (tmp_path / "a-folder.nbm").mkdir()
    for target in (tmp_path / "missing" / "m.nbm", tmp_path / "a-folder.nbm"):
        with pytest.raises(OSError) as caught, atomic_file(target) as handle:
            handle.write(b"x")
        assert caught.value.filename == str(target) and ".tmp" not in str(caught.value)
    assert [p.name for p in tmp_path.iterdir()] == ["a-folder.nbm"]

"""Atomic writes keep the old file on failure and give new files the user's usual mode."""

from __future__ import annotations

import os

import numpy as np
import pytest

from seqviz.core._io import atomic_savez
from seqviz.files import atomic_write


def test_atomic_write_text_bytes_and_callable(tmp_path):
    p = tmp_path / "a.txt"
    atomic_write(p, "héllo")
    assert p.read_text(encoding="utf-8") == "héllo"
    atomic_write(p, b"\x00\x01")
    assert p.read_bytes() == b"\x00\x01"
    atomic_write(p, lambda f: f.write(b"xyz"))
    assert p.read_bytes() == b"xyz"


def test_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path):
    p = tmp_path / "keep.npz"
    atomic_savez(p, {"a": np.arange(3)})

    def boom(f):
        f.write(b"partial")
        raise KeyboardInterrupt  # a Ctrl-C in the middle of a save

    with pytest.raises(KeyboardInterrupt):
        atomic_write(p, boom)
    with np.load(p) as z:
        assert z["a"].tolist() == [0, 1, 2]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["keep.npz"]


def test_new_files_follow_the_umask_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        p = atomic_write(tmp_path / "shot.svg", "<svg/>")
    finally:
        os.umask(old)
    assert p.stat().st_mode & 0o777 == 0o644


def test_missing_folder_is_one_sentence(tmp_path):
    with pytest.raises(FileNotFoundError, match="folder .* does not exist"):
        atomic_write(tmp_path / "nope" / "x.txt", "x")

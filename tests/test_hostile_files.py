"""Hostile files: devices, FIFOs, zip bombs, lying headers, odd dtypes, deep nests, stale temps."""

from __future__ import annotations

import io
import os
import tracemalloc
import zipfile

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.core import Params, trace
from seqviz.core._io import read_npy, read_npz
from seqviz.files import atomic_write
from seqviz.limits import ENV_FILE_ROOT, LimitError, check_output, confine, read_text

GB = 1 << 30


def _npy_header(shape, descr="<f8") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": descr, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


@pytest.fixture
def hostile(tmp_path):
    """name -> path of one hostile file each."""
    files = {}
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    files["fifo"] = fifo
    files["device"] = "/dev/zero"
    files["folder"] = tmp_path
    bomb = tmp_path / "bomb.npz"  # ~100 KB on disk, 100 MB of zeros inside
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("weight_ih_l0.npy", "w") as f:
            f.write(_npy_header((12_500_000,)))
            for _ in range(100):
                f.write(b"\0" * 1_000_000)
    files["zip bomb"] = bomb
    liar = tmp_path / "liar.npz"  # header claims 10^6 x 10^6 doubles (8 TB)
    with zipfile.ZipFile(liar, "w") as z:
        z.writestr("weight_ih_l0.npy", _npy_header((10**6, 10**6)) + b"\0" * 64)
    files["huge header"] = liar
    complex_ = tmp_path / "complex.npz"
    np.savez(complex_, weight_ih_l0=np.ones((4, 3), complex), weight_hh_l0=np.ones((4, 4)))
    files["complex"] = complex_
    structured = tmp_path / "structured.npz"
    np.savez(structured, weight_ih_l0=np.zeros(3, dtype=[("a", "<f8"), ("b", "<i4")]))
    files["structured"] = structured
    good = tmp_path / "good.npz"
    Params.random("lstm", 3, 4).save(good)
    files["good"] = good
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    files["truncated"] = truncated
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"PK\x03\x04" + os.urandom(300))
    files["garbage"] = garbage
    return files


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind",
    ["fifo", "device", "folder", "zip bomb", "huge header", "complex", "structured", "truncated",
     "garbage"],
)  # fmt: skip
def test_hostile_npz_is_one_sentence_with_little_memory(hostile, kind):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            Params.load(hostile[kind])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "\n" not in message and len(message) < 400
    assert peak < GB / 4, f"{kind}: {peak / 2**20:.0f} MB traced"


def test_zip_bomb_and_header_name_the_problem(hostile):
    with pytest.raises(LimitError, match="zip bomb"):
        read_npz(hostile["zip bomb"], "weights")
    with pytest.raises(LimitError, match=r"claims shape \(1000000, 1000000\)"):
        read_npz(hostile["huge header"], "weights")
    with pytest.raises(LimitError, match="complex128 values"):
        read_npz(hostile["complex"], "weights")
    with pytest.raises(LimitError, match="not a regular file"):
        read_npz(hostile["fifo"], "weights")


def test_good_arrays_read_back_exactly(tmp_path):
    arrays = {
        "f": np.arange(12.0).reshape(3, 4),
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "big_endian": np.arange(5, dtype=">i4"),
        "text": np.array(["a", "bb", "ccc"]),
        "empty": np.zeros((0, 3)),
        "scalar": np.array(7.5),
    }
    np.savez_compressed(tmp_path / "ok.npz", **arrays)
    got = read_npz(tmp_path / "ok.npz", "arrays")
    assert set(got) == set(arrays)
    for k, v in arrays.items():
        assert got[k].shape == v.shape and got[k].dtype == v.dtype and np.array_equal(got[k], v)
    np.save(tmp_path / "x.npy", arrays["fortran"])
    assert np.array_equal(read_npy(tmp_path / "x.npy", "x"), arrays["fortran"])


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["decode", "--bigram", "/dev/zero"],
        ["decode", "--model", "/dev/zero"],
        ["train", "/dev/zero", "--out", "{tmp}/m.npz"],
        ["demo", "/dev/zero", "--check"],
        ["--weights", "{fifo}"],
        ["export", "--weights", "{fifo}", "--input", "{tmp}/x.npy", "--out", "{tmp}/t.npz"],
        ["export", "--weights", "{good}", "--input", "/dev/zero", "--out", "{tmp}/t.npz"],
        ["screenshot", "--demo", "{fifo}", "--out", "{tmp}/s.svg"],
        ["translate", "--input", "{fifo}"],
        ["translate", "--input", "/dev/zero"],
    ],
)
def test_devices_and_fifos_are_refused_at_once(hostile, tmp_path, capsys, argv):
    fill = {"tmp": str(tmp_path), "fifo": str(hostile["fifo"]), "good": str(hostile["good"])}
    argv = [a.format(**fill) for a in argv]
    np.save(tmp_path / "x.npy", np.ones((3, 3)))
    tracemalloc.start()
    try:
        code = main(argv)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("seqviz: error: ") and err.count("\n") == 1, err
    assert "regular file" in err
    assert peak < GB


def test_deep_json_and_toml_are_one_sentence(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["decode", "--bigram", str(deep)]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and err.count("\n") == 1
    toml = tmp_path / "deep.toml"
    toml.write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    assert main(["demo", str(toml), "--check"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_text_files_are_capped(tmp_path, monkeypatch):
    from seqviz import limits

    big = tmp_path / "big.txt"
    big.write_bytes(b"a b c\n" * 1000)
    monkeypatch.setitem(limits.FILE_CAPS, "text", 100)
    with pytest.raises(LimitError, match="more than the 0 MB limit|limit"):
        read_text(big, "corpus", "text")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff\xfe")
    monkeypatch.setitem(limits.FILE_CAPS, "text", 1 << 20)
    with pytest.raises(LimitError, match="not UTF-8 text"):
        read_text(bad, "corpus", "text")


def test_a_file_that_grows_past_the_cap_while_it_is_read_is_refused_not_cut(tmp_path, monkeypatch):
    """The size is checked before the file is opened; a writer can still append before it is
    read. Reading stops one byte past the cap, so such a file is refused in one sentence, never
    handed on cut at the cap (a corpus or a bigram table that silently lost its end)."""
    from seqviz import limits

    monkeypatch.setitem(limits.FILE_CAPS, "text", 100)
    exact = tmp_path / "exact.txt"
    exact.write_bytes(b"x" * 100)
    assert limits.read_text(exact, "corpus", "text") == "x" * 100  # the cap itself is allowed
    grows = tmp_path / "grows.txt"
    grows.write_bytes(b"a b\n" * 10)  # 40 bytes when checked
    checked, more = limits.check_regular, b"c d\n" * (2 << 20)

    def check_then_grow(path, what, cap=None):
        p = checked(path, what, cap)
        with open(grows, "ab") as f:  # another process appends between the check and the read
            f.write(more)
        return p

    monkeypatch.setattr(limits, "check_regular", check_then_grow)
    tracemalloc.start()
    try:
        with pytest.raises(LimitError, match=r"^the corpus '.*grows\.txt' is larger than 0 MB\.$"):
            limits.read_text(grows, "corpus", "text")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert grows.stat().st_size > 8 << 20 and peak < 1 << 20  # read no further than the cap


def test_output_paths_are_checked_before_work(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat\n")
    for out, says in [("", "is empty"), (str(tmp_path), "is a folder"),
                      (str(tmp_path / "no" / "m.npz"), "does not exist")]:  # fmt: skip
        assert main(["train", str(corpus), "--out", out, "--epochs", "1"]) == 2
        assert says in capsys.readouterr().err
        assert main(["export", "--cell", "rnn", "--out", out]) == 2
        assert says in capsys.readouterr().err
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if not os.access(locked, os.W_OK):  # root may write anyway
            with pytest.raises(LimitError, match="cannot be written"):
                check_output(locked / "m.npz")
    finally:
        locked.chmod(0o700)


def test_leftover_temp_of_a_killed_save_is_removed_on_the_next_save(tmp_path):
    target = tmp_path / "model.npz"
    stale = tmp_path / ".model.npz.abc123.tmp"  # what kill -9 during a save leaves
    stale.write_bytes(b"half")
    os.utime(stale, (1, 1))
    other = tmp_path / ".other.npz.abc123.tmp"
    other.write_bytes(b"another file's save")
    os.utime(other, (1, 1))
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert not stale.exists() and other.exists()


def test_a_live_save_keeps_its_temp(tmp_path):
    import fcntl

    target = tmp_path / "m.npz"
    live = tmp_path / ".m.npz.live.tmp"
    live.write_bytes(b"being written")
    os.utime(live, (1, 1))
    with open(live, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # another process mid-save holds this lock
        atomic_write(target, b"x")
        assert live.exists()


def test_served_sessions_keep_paths_in_their_folder(tmp_path, monkeypatch):
    root = tmp_path / "room"
    root.mkdir()
    monkeypatch.setenv(ENV_FILE_ROOT, str(root))
    assert confine("shots") == root / "shots"
    for outside in ["/etc/passwd", "../x", str(tmp_path / "y"), "~/z"]:
        with pytest.raises(LimitError, match="outside"):
            confine(outside)
    from seqviz import models

    assert models.load("agreement").vocab  # files shipped inside the package stay readable
    Params.random("rnn", 2, 2).save(root / "w.npz")
    monkeypatch.setenv(ENV_FILE_ROOT, "")
    with pytest.raises(LimitError, match="--allow-files"):
        confine("shots")
    with pytest.raises(ValueError, match="--allow-files"):
        Params.load(root / "w.npz")


def test_huge_gradients_report_overflow_when_the_norm_is_inf():
    p = Params.random("gru", 3, 4)
    x = np.ones((5, 3))
    finite = trace(p, x, grad_hT=np.full(4, 1e200))  # norms 2e200: representable
    assert finite.overflow is None and np.isfinite(finite.grad_norms()).all()
    assert finite.grad_norms()[0] == pytest.approx(2e200)
    huge = trace(p, x, grad_hT=np.full(4, 1.7e308))  # entries finite, the norm is not
    assert not np.isfinite(huge.grad_norms()).all()
    assert huge.overflow is not None and huge.overflow.what == "|grad_h|"


def test_random_params_seed_is_a_value_error():
    with pytest.raises(ValueError, match="seed must be a whole number"):
        Params.random("lstm", 2, 3, seed="abc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        Params.random("lstm", 2, 3, seed=-1)


@pytest.mark.slow
async def test_a_fifo_as_the_gates_weights_shows_an_error_and_quits(make_app, tmp_path):
    fifo = tmp_path / "weights.npz"
    os.mkfifo(fifo)
    app = make_app("gates", {"model": "file", "weights": str(fifo)})
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready(timeout=60)  # before: the compute thread blocked on the FIFO
        await pilot.pause()
        assert "regular file" in app._error


def test_torch_files_that_are_not_dense_real_state_dicts(tmp_path):
    torch = pytest.importorskip("torch")
    module = torch.nn.LSTM(2, 3)
    torch.save(module, tmp_path / "module.pt")  # a whole pickled module, not a state_dict
    with pytest.raises(ValueError, match=r"state_dict\(\)"):
        Params.load(tmp_path / "module.pt")
    good = module.state_dict()
    for name, bad in [
        ("sparse", {**good, "weight_hh_l0": good["weight_hh_l0"].to_sparse()}),
        ("meta", {**good, "weight_hh_l0": torch.empty(12, 3, device="meta")}),
        ("complex", {**good, "weight_hh_l0": good["weight_hh_l0"].to(torch.complex64)}),
    ]:
        torch.save(bad, tmp_path / f"{name}.pt")
        with pytest.raises(ValueError) as info:
            Params.load(tmp_path / f"{name}.pt")
        assert "\n" not in str(info.value) and len(str(info.value)) < 300
    (tmp_path / "cut.pt").write_bytes((tmp_path / "module.pt").read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable torch file"):
        Params.load(tmp_path / "cut.pt")

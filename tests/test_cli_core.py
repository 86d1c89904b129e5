"""The headless commands: seqviz run vanishing|memory, seqviz export, seqviz bench."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.core import Params, Trace


def test_run_vanishing_prints_the_lesson_digits(capsys):
    assert main(["run", "vanishing"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[3:6]}
    assert rows["0.8"] == ["6.5e-01", "6.7e-03", "5.9e-07", "3.5e-13", "9.7e-07"]
    assert rows["1.0"] == ["7.8e-01", "6.1e-02", "8.5e-05", "9.5e-09", "2.2e-01"]
    assert rows["1.2"] == ["9.4e-01", "2.0e-01", "2.2e-03", "1.4e-05", "2.2e+04"]


def test_run_vanishing_options_and_json(capsys):
    argv = ["run", "vanishing", "--rho", "0.5", "0.9", "1.5", "--hidden", "128", "--steps",
            "200", "--seed", "3", "--json"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["hidden"], data["steps"], data["seed"]) == (128, 200, 3)
    assert [r["rho"] for r in data["rows"]] == [0.5, 0.9, 1.5]
    assert data["rows"][0]["ks"] == [1, 10, 30, 199]
    assert len(data["rows"][2]["grad_norms"]) == 200


def test_run_memory_prints_the_lesson_digits(capsys):
    assert main(["run", "memory"]) == 0
    out = capsys.readouterr().out
    assert "1.48e-05" in out and "0.859" in out and "saturated" in out
    # A faded cell in e-notation (c_T = 0.000 said nothing), a held one with three decimals.
    for f, c in (("0.88080", "3.30e-06"), ("0.99331", "0.487"), ("0.99995", "0.942")):
        assert any(f in line and line.rstrip().endswith(c) for line in out.splitlines())
    argv = ["run", "memory", "--w", "0.5", "--forget-bias", "3", "--steps", "10", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["steps"] == 10 and [r["w"] for r in data["rnn"]] == [0.5]


def test_run_bad_values_end_in_one_line(capsys):
    assert main(["run", "vanishing", "--hidden", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("seqviz: error: --hidden must be from 1 to 2,048, not '0'")
    assert err.count("\n") == 1


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_export_random_model(tmp_path, capsys, cell):
    out = tmp_path / "trace.npz"
    argv = ["export", "--cell", cell, "--input-size", "3", "--hidden", "5", "--steps", "7",
            "--seed", "2", "--out", str(out)]  # fmt: skip
    if cell == "gru":
        argv += ["--variant", "pytorch"]
    assert main(argv) == 0
    tr = Trace.load(out)
    assert tr.params.cell == cell and tr.h.shape == (7, 5) and tr.x.shape == (7, 3)
    assert (tr.gates is None) == (cell == "rnn")
    assert not list(tmp_path.glob("*.tmp"))
    assert "wrote" in capsys.readouterr().out


def test_export_options_reach_the_params(tmp_path):
    out = tmp_path / "t.npz"
    argv = ["export", "--cell", "rnn", "--nonlinearity", "linear", "--spectral-radius", "3",
            "--hidden", "8", "--steps", "1000", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    tr = Trace.load(out)
    assert tr.params.nonlinearity == "linear" and tr.overflow is not None
    assert np.max(np.abs(np.linalg.eigvals(tr.params.weight_hh))) == pytest.approx(3)
    assert main(["export", "--cell", "lstm", "--forget-bias", "2.5", "--out", str(out)]) == 0
    d = Trace.load(out).params.hidden_size
    assert np.all(Trace.load(out).params.bias_ih[d : 2 * d] == 2.5)


def test_export_weights_npz_and_input(tmp_path):
    p = Params.random("gru", 2, 4, seed=0)
    p.save(tmp_path / "m.npz")
    np.save(tmp_path / "x.npy", np.ones((6, 2)))
    out = tmp_path / "t.npz"
    argv = ["export", "--weights", str(tmp_path / "m.npz"), "--input", str(tmp_path / "x.npy"),
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    tr = Trace.load(out)
    np.testing.assert_array_equal(tr.params.weight_hh, p.weight_hh)
    assert tr.T == 6


def test_export_bad_input(tmp_path, capsys):
    out = str(tmp_path / "t.npz")
    assert main(["export", "--out", out]) == 2
    assert "--cell" in capsys.readouterr().err
    assert main(["export", "--cell", "rnn", "--hidden", "0", "--out", out]) == 2
    assert "--hidden must be from 1 to 2,048, not '0'" in capsys.readouterr().err
    Params.random("rnn", 2, 3, seed=0).save(tmp_path / "m.npz")
    np.save(tmp_path / "x.npy", np.ones((4, 5)))
    argv = ["export", "--weights", str(tmp_path / "m.npz"), "--input", str(tmp_path / "x.npy"),
            "--out", out]  # fmt: skip
    assert main(argv) == 2
    assert "x has shape (4, 5), expected (4, 2)" in capsys.readouterr().err
    assert main(["export", "--cell", "rnn", "--out", str(tmp_path / "missing" / "t.npz")]) == 2
    assert not (tmp_path / "t.npz").exists()


def test_export_weights_pt(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    module = torch.nn.LSTM(2, 3, dtype=torch.float64)
    torch.save(module.state_dict(), tmp_path / "m.pt")
    x = np.random.default_rng(0).normal(size=(5, 2))
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "t.npz"
    argv = ["export", "--weights", str(tmp_path / "m.pt"), "--input", str(tmp_path / "x.npy"),
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    want, _ = module(torch.tensor(x))
    np.testing.assert_allclose(Trace.load(out).h, want.detach().numpy(), rtol=1e-12)


def test_no_arguments_give_the_app_the_parsers_defaults():
    """A bare `seqviz` skips argparse (launch time); what the app gets must be what parsing
    no arguments gives, and a fresh list each time (the app may append to --set's)."""
    from seqviz.cli import _app_args, build_parser

    parsed, rest = build_parser(commands=False).parse_known_args([])
    assert rest == [] and vars(_app_args([])) == vars(parsed)
    assert _app_args([]).settings is not _app_args([]).settings
    assert vars(_app_args(["--scene", "gates"]))["scene"] == "gates"  # anything else parses

"""Stacked and bidirectional stacks agree with nn.RNN/LSTM/GRU: outputs and every gradient."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.core import Params, StackParams, trace_stack

torch = pytest.importorskip("torch")

MODULES = {
    "rnn-tanh": lambda **kw: torch.nn.RNN(3, 4, nonlinearity="tanh", **kw),
    "rnn-relu": lambda **kw: torch.nn.RNN(3, 4, nonlinearity="relu", **kw),
    "lstm": lambda **kw: torch.nn.LSTM(3, 4, **kw),
    "gru": lambda **kw: torch.nn.GRU(3, 4, **kw),
}
COMBOS = list(itertools.product(MODULES, (1, 2, 3), (False, True)))


def _numpy_state(module):
    return {k: v.detach().numpy() for k, v in module.state_dict().items()}


@pytest.mark.parametrize(
    ("name", "layers", "bi"), COMBOS, ids=[f"{n}-L{k}-{'bi' if b else 'uni'}" for n, k, b in COMBOS]
)
def test_outputs_and_all_gradients_equal_autograd(name, layers, bi):
    torch.manual_seed(layers)
    module = MODULES[name](num_layers=layers, bidirectional=bi, dtype=torch.float64)
    nl = "relu" if name == "rnn-relu" else "tanh"
    p = StackParams.from_state_dict(_numpy_state(module), nonlinearity=nl)
    D, T = 2 if bi else 1, 7
    rng = np.random.default_rng(layers + 10 * bi)
    x = rng.normal(size=(T, 3))
    h0, c0 = rng.normal(0, 0.5, (layers * D, 4)), rng.normal(0, 0.5, (layers * D, 4))
    g_out, g_hn = rng.normal(size=(T, D * 4)), rng.normal(size=(layers * D, 4))
    lstm = name == "lstm"
    tr = trace_stack(p, x, h0, c0 if lstm else None, grad_out=g_out, grad_hn=g_hn)

    xt, h0t, c0t = (torch.tensor(a, requires_grad=True) for a in (x, h0, c0))
    out, state = module(xt, (h0t, c0t) if lstm else h0t)
    hn = state[0] if lstm else state
    loss = (out * torch.tensor(g_out)).sum() + (hn * torch.tensor(g_hn)).sum()
    loss.backward()
    close = dict(rtol=0, atol=1e-9)
    np.testing.assert_allclose(tr.h, out.detach().numpy(), **close)
    np.testing.assert_allclose(tr.h_n, hn.detach().numpy(), **close)
    if lstm:
        np.testing.assert_allclose(tr.c_n, state[1].detach().numpy(), **close)
        np.testing.assert_allclose(tr.grad_c0(), c0t.grad.numpy(), **close)
    np.testing.assert_allclose(tr.grad_x, xt.grad.numpy(), **close)
    np.testing.assert_allclose(tr.grad_h0(), h0t.grad.numpy(), **close)
    grads = tr.grads()
    assert set(grads) == {k for k, _ in module.named_parameters()}
    for k, v in module.named_parameters():
        np.testing.assert_allclose(grads[k], v.grad.numpy(), err_msg=k, **close)
    # Per-layer outputs: layer l's output is what layer l+1 reads.
    for layer in range(layers - 1):
        np.testing.assert_allclose(tr.output(layer), tr.cell(layer + 1, 0).x, **close)


def test_pt_files_load_through_params_load_and_export(tmp_path, capsys):
    torch.manual_seed(3)
    module = torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    torch.save(module.state_dict(), tmp_path / "bi.pt")
    p = Params.load(tmp_path / "bi.pt")
    assert isinstance(p, StackParams) and (p.num_layers, p.bidirectional) == (2, True)
    x = np.random.default_rng(0).normal(size=(6, 3))
    np.save(tmp_path / "x.npy", x)
    assert main(["export", "--weights", str(tmp_path / "bi.pt"), "--input",
                 str(tmp_path / "x.npy"), "--out", str(tmp_path / "t.npz")]) == 0  # fmt: skip
    assert "2-layer bidirectional lstm" in capsys.readouterr().out
    data = np.load(tmp_path / "t.npz")
    want, _ = module(torch.tensor(x, dtype=torch.float32))
    assert data["h"].shape == (6, 10)
    np.testing.assert_allclose(data["h"], want.detach().numpy(), atol=1e-5)
    for k in ("h_l0", "h_l0_reverse", "h_l1", "h_l1_reverse", "gates_l1_reverse",
              "grad_weight_hh_l1_reverse"):  # fmt: skip
        assert k in data
    np.testing.assert_allclose(data["h"][:, 5:], data["h_l1_reverse"])
    # A stacked state_dict saved as .npz with seqviz's settings reads back identically.
    p.save(tmp_path / "bi.npz")
    again = Params.load(tmp_path / "bi.npz")
    assert isinstance(again, StackParams)
    np.testing.assert_array_equal(again.layer(1, "reverse").weight_hh, p.layer(1, 1).weight_hh)


def test_a_model_holding_the_stack_loads_by_prefix(tmp_path):
    class Tagger(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(10, 3)
            self.rnn = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
            self.out = torch.nn.Linear(8, 5)

    torch.save(Tagger().state_dict(), tmp_path / "tagger.pt")
    p = Params.load(tmp_path / "tagger.pt")
    assert isinstance(p, StackParams) and p.cell == "gru" and p.output_size == 8

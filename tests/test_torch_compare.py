"""seqviz agrees with nn.RNN/nn.LSTM/nn.GRU: outputs, autograd gradients, .pt loading."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.core import Params, StackParams, trace

torch = pytest.importorskip("torch")

MODULES = [
    ("rnn", "tanh", lambda: torch.nn.RNN(3, 5, nonlinearity="tanh", dtype=torch.float64)),
    ("rnn", "relu", lambda: torch.nn.RNN(3, 5, nonlinearity="relu", dtype=torch.float64)),
    ("lstm", "tanh", lambda: torch.nn.LSTM(3, 5, dtype=torch.float64)),
    ("gru", "tanh", lambda: torch.nn.GRU(3, 5, dtype=torch.float64)),
]
IDS = [f"{c}-{n}" for c, n, _ in MODULES]


def _torch_run(module, cell, x, h0, c0, grad_out, grad_hT):
    xt = torch.tensor(x, requires_grad=True)
    h0t = torch.tensor(h0[None], requires_grad=True)
    c0t = torch.tensor(c0[None], requires_grad=True) if cell == "lstm" else None
    module.zero_grad()
    out, _ = module(xt, (h0t, c0t) if cell == "lstm" else h0t)
    out.retain_grad()
    loss = (out * torch.tensor(grad_out)).sum() + out[-1] @ torch.tensor(grad_hT)
    loss.backward()
    grads = {
        "h": out.detach().numpy(),
        "grad_x": xt.grad.numpy(),
        "grad_h0": h0t.grad.numpy()[0],
        "grad_weight_ih": module.weight_ih_l0.grad.numpy(),
        "grad_weight_hh": module.weight_hh_l0.grad.numpy(),
        "grad_bias_ih": module.bias_ih_l0.grad.numpy(),
        "grad_bias_hh": module.bias_hh_l0.grad.numpy(),
    }
    if cell == "lstm":
        grads["grad_c0"] = c0t.grad.numpy()[0]
    return grads


def _inputs(seed):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(8, 3)), rng.normal(0, 0.5, 5), rng.normal(0, 0.5, 5),
            rng.normal(size=(8, 5)), rng.normal(size=5))  # fmt: skip


def _compare(p, module, cell, seed):
    x, h0, c0, grad_out, grad_hT = _inputs(seed)
    tr = trace(p, x, h0, c0 if cell == "lstm" else None, grad_hT=grad_hT, grad_out=grad_out)
    want = _torch_run(module, cell, x, h0, c0, grad_out, grad_hT)
    for name, value in want.items():
        np.testing.assert_allclose(getattr(tr, name), value, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize(("cell", "nl", "make"), MODULES, ids=IDS)
def test_matches_torch_outputs_and_gradients(cell, nl, make):
    torch.manual_seed(0)
    module = make()
    state = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    p = Params.from_state_dict(state, nonlinearity=nl)
    assert p.cell == cell
    if cell == "gru":
        assert p.variant == "pytorch"
    _compare(p, module, cell, seed=1)


@pytest.mark.parametrize(("cell", "nl", "make"), MODULES, ids=IDS)
def test_pt_state_dict_round_trip(tmp_path, cell, nl, make):
    torch.manual_seed(3)
    module = make()
    path = tmp_path / "model.pt"
    torch.save(module.state_dict(), path)
    p = Params.load(path, nonlinearity=nl)
    assert p.cell == cell and p.nonlinearity == nl
    assert p.variant == ("pytorch" if cell == "gru" else "textbook")
    _compare(p, module, cell, seed=2)


def test_float32_state_dict_and_refusals(tmp_path):
    module = torch.nn.LSTM(2, 3, num_layers=2)
    torch.save(module.state_dict(), tmp_path / "deep.pt")
    deep = Params.load(tmp_path / "deep.pt")  # a stack now loads as StackParams
    assert isinstance(deep, StackParams) and deep.num_layers == 2 and not deep.bidirectional
    module = torch.nn.GRU(2, 3, bidirectional=True)
    torch.save(module.state_dict(), tmp_path / "bi.pt")
    bi = Params.load(tmp_path / "bi.pt")
    assert isinstance(bi, StackParams) and bi.bidirectional and bi.variant == "pytorch"
    module = torch.nn.GRU(2, 3)  # float32 weights load as float64
    torch.save(module.state_dict(), tmp_path / "f32.pt")
    p = Params.load(tmp_path / "f32.pt")
    assert p.weight_hh.dtype == np.float64 and p.cell == "gru"
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not a readable torch file"):
        Params.load(tmp_path / "junk.pt")


def test_textbook_gru_differs_from_torch():
    """The default GRU variant is the lesson's equations, not nn.GRU's (a real difference)."""
    torch.manual_seed(0)
    module = torch.nn.GRU(3, 5, dtype=torch.float64)
    state = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    p = Params.from_state_dict(state, variant="textbook")
    x, h0, *_ = _inputs(0)
    out, _ = module(torch.tensor(x), torch.tensor(h0[None]))
    assert not np.allclose(trace(p, x, h0).h, out.detach().numpy(), atol=1e-3)


def test_recurrent_layer_inside_a_bigger_model(tmp_path):
    class Tagger(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.GRU(3, 5, dtype=torch.float64)
            self.head = torch.nn.Linear(5, 2, dtype=torch.float64)

    torch.manual_seed(4)
    model = Tagger()
    torch.save(model.state_dict(), tmp_path / "tagger.pt")
    p = Params.load(tmp_path / "tagger.pt")
    assert p.cell == "gru" and p.variant == "pytorch"
    _compare(p, model.rnn, "gru", seed=4)

    class Two(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.LSTM(2, 3)
            self.b = torch.nn.LSTM(3, 3)

    torch.save(Two().state_dict(), tmp_path / "two.pt")
    # one wording whether the file is read as one cell or as a stack
    several = r"several recurrent networks \(a\.weight_ih_l0, b\.weight_ih_l0\); save the"
    with pytest.raises(ValueError, match=several):
        Params.load(tmp_path / "two.pt")
    with pytest.raises(ValueError, match=several):
        StackParams.load(tmp_path / "two.pt")
    torch.save(torch.nn.LSTM(2, 4, proj_size=2).state_dict(), tmp_path / "proj.pt")
    with pytest.raises(ValueError, match="without projection"):
        Params.load(tmp_path / "proj.pt")


def test_npz_with_torch_keys_loads_like_the_pt(tmp_path):
    torch.manual_seed(5)
    module = torch.nn.GRU(3, 5, dtype=torch.float64)
    np.savez(tmp_path / "gru.npz", **{k: v.numpy() for k, v in module.state_dict().items()})
    p = Params.load(tmp_path / "gru.npz")
    assert p.cell == "gru" and p.variant == "pytorch"
    _compare(p, module, "gru", seed=5)

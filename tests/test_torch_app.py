"""`seqviz --weights model.pt`: the gates scene opens on a model saved from PyTorch."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest

from seqviz.cli import build_parser, main
from seqviz.commands.app import resolve
from seqviz.ui.export import screen_text

torch = pytest.importorskip("torch")


def _save(tmp_path, module, name):
    path = tmp_path / name
    torch.save(module.state_dict(), path)
    return path


def _torch_h(module, text, input_size, seed):
    from seqviz.scenes.gates import embed

    x = torch.tensor(embed(text, input_size, seed), dtype=torch.float32)[:, None]  # (T, 1, d_in)
    with torch.no_grad():
        out, _ = module(x)
    return out[:, 0].double().numpy()


def test_cli_opens_the_gates_scene_on_the_weights(tmp_path, monkeypatch):
    torch.manual_seed(0)
    path = _save(tmp_path, torch.nn.LSTM(5, 7), "lstm.pt")
    seen = {}

    def fake_run(app, *args, **kwargs):  # stands in for the terminal: record what would show
        seen.update(scene=app.scene.name, weights=app.values.weights)

    monkeypatch.setattr("seqviz.ui.app.SeqvizApp.run", fake_run)
    monkeypatch.setattr("seqviz.commands.terminal.check_terminal", lambda: None)  # no tty here
    assert main(["--weights", str(path)]) == 0
    assert seen == {"scene": "gates", "weights": str(path)}


@pytest.mark.slow
@pytest.mark.parametrize("cell", ["lstm", "gru"])
async def test_gates_scene_shows_the_loaded_model(tmp_path, make_app, ready, cell):
    torch.manual_seed(1)
    module = (torch.nn.LSTM if cell == "lstm" else torch.nn.GRU)(5, 7)
    path = _save(tmp_path, module, f"{cell}.pt")
    args = build_parser().parse_args(["--weights", str(path), "--set", "text=hello there"])
    scene, values = resolve(args)
    app = make_app(scene, asdict(values))
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        result = app.result
        assert result.hidden == 7 and result.input_size == 5 and result.cell == cell
        if cell == "gru":
            assert result.variant == "pytorch"  # so h_t is what nn.GRU computes
        text = screen_text(app)
        assert f"{cell.upper()}" in text and "d=7, d_in=5" in text
        # The hidden states on screen are PyTorch's own, on the same embedded characters.
        expected = _torch_h(module, "hello there", 5, values.seed)
        np.testing.assert_allclose(result.h, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: torch.nn.LSTM(5, 7, num_layers=2, proj_size=3), "weight_hr_l0"),
        (lambda: torch.nn.RNN(5, 7), "the gates scene shows lstm or gru"),
    ],
)
def test_unsupported_models_are_refused_in_one_sentence(tmp_path, capsys, make, words):
    path = _save(tmp_path, make(), "model.pt")
    assert main(["--weights", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("seqviz: error: ") and err.count("\n") == 1
    assert words in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "layer, direction", [(0, "forward"), (0, "reverse"), (1, "forward"), (1, "reverse")]
)
async def test_gates_scene_shows_any_cell_of_a_stack(tmp_path, make_app, ready, layer, direction):
    """A 2-layer bidirectional nn.LSTM: each cell's h is PyTorch's, picked by layer/direction."""
    from seqviz.scenes.gates import embed

    torch.manual_seed(2)
    module = torch.nn.LSTM(5, 4, num_layers=2, bidirectional=True)
    path = _save(tmp_path, module, "bi.pt")
    args = build_parser().parse_args(
        [
            "--weights",
            str(path),
            "--set",
            "text=hello there",
            "--set",
            f"layer={layer}",
            "--set",
            f"direction={direction}",
        ]
    )
    scene, values = resolve(args)
    # PyTorch's per-layer outputs: layer 0 alone, then the whole stack for layer 1.
    x = torch.tensor(embed("hello there", 5, values.seed), dtype=torch.float32)[:, None]
    single = torch.nn.LSTM(5, 4, bidirectional=True)
    single.load_state_dict({k: v for k, v in module.state_dict().items() if "_l0" in k})
    with torch.no_grad():
        out = (module if layer else single)(x)[0][:, 0].double().numpy()  # (T, 8)
    want = out[:, 4:] if direction == "reverse" else out[:, :4]
    app = make_app(scene, asdict(values))
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        assert r.input_size == (5 if layer == 0 else 8)
        np.testing.assert_allclose(r.h, want, rtol=1e-5, atol=1e-6)
        assert r.source.endswith(f"layer {layer} {direction} of a 2-layer bidirectional lstm "
                                 "(hidden 4)")  # fmt: skip
        assert f"layer {layer} {direction}" in screen_text(app)  # in the readout
        app.set_param("layer", 2)
        await ready(app, pilot)
        assert "layer 2 does not exist; this stack has layers 0-1" in app._error


def test_a_unidirectional_stack_has_no_reverse_cell(tmp_path, capsys):
    path = _save(tmp_path, torch.nn.GRU(3, 4, num_layers=2), "deep.pt")
    from seqviz.scenes.gates import SCENE, compute, hidden

    v = SCENE.make({"model": "file", "weights": str(path), "text": "abc", "layer": 1})
    assert compute(v).input_size == 4 and "layer" not in hidden(v)
    with pytest.raises(ValueError, match="reverse exists only in a bidirectional stack"):
        compute(SCENE.make({"model": "file", "weights": str(path), "direction": "reverse"}))

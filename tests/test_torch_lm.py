"""Whole PyTorch language models: read by tensor shapes, compared with PyTorch, exported back."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from seqviz.cli import main  # noqa: E402
from seqviz.inside.reading import read  # noqa: E402
from seqviz.models import torch_lm  # noqa: E402

WORDS = "the cat dog sat ran on a mat log and <unk>".split()
VOCAB = ("<eos>", *WORDS)
SENTENCES = ["the cat sat on a mat", "a dog ran on the log", "the dog sat and the cat ran"]
CELLS = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}


class ExampleLM(nn.Module):
    """The layout of PyTorch's word-language-model example: encoder, rnn, decoder."""

    def __init__(self, cell, V, E, H, layers, tied, bias=True):
        super().__init__()
        self.encoder = nn.Embedding(V, E)
        self.rnn = CELLS[cell](E, H, num_layers=layers)  # (T, B, ...) like the example
        self.decoder = nn.Linear(H, V, bias=bias)
        if tied:
            self.decoder.weight = self.encoder.weight

    def forward(self, ids):  # ids (T,) -> log-probabilities (T, V)
        out, _ = self.rnn(self.encoder(ids)[:, None, :])
        return torch.log_softmax(self.decoder(out[:, 0]), dim=-1)


class OtherLM(nn.Module):
    """Other names, nested modules, batch_first, the head before the embedding in the file."""

    def __init__(self, cell, V, E, H, layers, tied, bias=True):
        super().__init__()
        self.out = nn.Sequential(nn.Linear(H, V, bias=bias))
        self.body = nn.ModuleDict(
            {"words": nn.Embedding(V, E), "seq": CELLS[cell](E, H, layers, batch_first=True)}
        )
        if tied:
            self.out[0].weight = self.body["words"].weight

    def forward(self, ids):
        out, _ = self.body["seq"](self.body["words"](ids)[None])
        return torch.log_softmax(self.out(out[0]), dim=-1)


def ids_of(sentence: str) -> list[int]:
    return [VOCAB.index("<eos>"), *(VOCAB.index(w) for w in sentence.split())]


def save(tmp_path, model, vocab=VOCAB, name="lm"):
    w, v = tmp_path / f"{name}.pt", tmp_path / f"{name}.txt"
    torch.save(model.state_dict(), w)
    v.write_text("".join(t + "\n" for t in vocab))
    return w, v


def reference(model, sentence):
    with torch.no_grad():
        return model.double()(torch.tensor(ids_of(sentence))).numpy()


def check_same(lm, model, sentence):
    """The imported model's next-word distributions after every prefix equal PyTorch's."""
    ref = np.exp(reference(model, sentence))  # (T, V)
    ours = np.exp(read(lm, sentence).logp)
    np.testing.assert_allclose(ours, ref, atol=1e-6, rtol=0)
    # the decoders' path (start, then advance one word at a time) gives the same
    ids = ids_of(sentence)[1:]
    state = lm.start([])
    np.testing.assert_allclose(np.exp(state.logp), ref[0], atol=1e-6, rtol=0)
    for t, i in enumerate(ids, 1):
        (state,) = lm.advance([state], [i])
        np.testing.assert_allclose(np.exp(state.logp), ref[t], atol=1e-6, rtol=0)


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("scheme", [ExampleLM, OtherLM])
def test_import_by_shape_matches_pytorch(tmp_path, cell, layers, tied, scheme):
    torch.manual_seed(layers * 7 + tied)
    E, H = (12, 12) if tied else (10, 14)
    model = scheme(cell, len(VOCAB), E, H, layers, tied, bias=not (tied and layers == 2))
    with torch.no_grad():  # weights of a trained size, so the distributions are not flat
        for p in model.parameters():
            p.mul_(3.0)
    w, v = save(tmp_path, model)
    lm, line = torch_lm.load(w, v)
    assert f"{layers}-layer {cell.upper()}" in line and "start with <eos>" in line
    assert ("tied to the embedding" in line) == tied
    assert len(lm.layers) == layers and lm.params.cell == cell
    for s in SENTENCES:
        check_same(lm, model, s)


@pytest.mark.slow
def test_trained_pytorch_lm_imports_to_1e6(tmp_path, capsys):
    """A few seconds of real PyTorch training, then the same distributions through seqviz."""
    torch.manual_seed(0)
    model = ExampleLM("lstm", len(VOCAB), 16, 24, 2, tied=False)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    data = [torch.tensor(ids_of(s) + [0]) for s in SENTENCES]
    losses = []
    for _ in range(60):  # about a second of training on a quiet machine
        for seq in data:
            loss = -model(seq[:-1]).gather(1, seq[1:, None]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert losses[-1] < losses[0] / 2  # it learnt something: the distributions are far from flat
    w, v = save(tmp_path, model)
    lm, _ = torch_lm.load(w, v)
    for s in SENTENCES:
        check_same(lm, model, s)
    # and through the command line: greedy decoding continues a training sentence
    code = main(["decode", "--model", str(w), "--vocab", str(v), "--strategy", "greedy",
                 "--prompt", "the cat sat on a", "--json"])  # fmt: skip
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "2-layer LSTM" in out.err
    assert json.loads(out.out)["hypotheses"][0]["tokens"][0] == "mat"


def test_vocabulary_as_json_list_and_start_token(tmp_path):
    torch.manual_seed(1)
    vocab = ("<s>", "</s>", *WORDS)
    model = ExampleLM("gru", len(vocab), 8, 8, 1, tied=False)
    w = tmp_path / "lm.pt"
    torch.save(model.state_dict(), w)
    v = tmp_path / "vocab.json"
    v.write_text(json.dumps(list(vocab)))
    lm, line = torch_lm.load(w, v)
    assert lm.bos == "<s>" and lm.eos == "</s>" and "start with <s>" in line
    assert lm.encode("the zebra sat") == [vocab.index(w) for w in ("the", "<unk>", "sat")]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda sd, v: (sd, v[:-1]), r"encoder.weight has 12 rows but the vocabulary has 11"),
        (lambda sd, v: ({**sd, "x.w": torch.zeros(3, 3, 3)}, v), r"x.w \(3, 3, 3\) is neither"),
        (lambda sd, v: ({**sd, "extra.weight": torch.zeros(3)}, v), r"has extra.weight besides"),
        (lambda sd, v: ({**sd, "fc.weight": torch.zeros(12, 5)}, v), r"has fc.weight besides"),
        (
            lambda sd, v: ({k: x for k, x in sd.items() if k != "encoder.weight"}, v),
            r"no embedding of 6 columns.*rnn.weight_ih_l0 \(32, 6\)",
        ),
        (
            lambda sd, v: ({**sd, "encoder.weight": torch.zeros(12, 5)}, v),
            r"no embedding of 6 columns",
        ),
        (lambda sd, v: ({**sd, "rnn.weight_ih_l0_reverse": sd["rnn.weight_ih_l0"]}, v),
         r"rnn.weight_ih_l0_reverse belongs to a bidirectional network"),
        (lambda sd, v: ({k: x for k, x in sd.items() if not k.startswith("rnn")}, v),
         r"holds no recurrent network"),
        (lambda sd, v: (sd, tuple(t for t in v if t != "<eos>") + ("x",)),
         r"has neither <s> nor <eos>"),
    ],
)  # fmt: skip
def test_mismatches_are_one_sentence_naming_keys(tmp_path, capsys, change, message):
    torch.manual_seed(2)
    model = ExampleLM("lstm", len(VOCAB), 6, 8, 1, tied=False)
    sd, vocab = change(dict(model.state_dict()), VOCAB)
    w, v = tmp_path / "lm.pt", tmp_path / "vocab.txt"
    torch.save(sd, w)
    v.write_text("".join(t + "\n" for t in vocab))
    with pytest.raises(ValueError, match=message):
        torch_lm.load(w, v)
    code = main(["decode", "--model", str(w), "--vocab", str(v)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_bad_vocabulary_files(tmp_path):
    v = tmp_path / "v.txt"
    v.write_text("a\n\nb\n")
    with pytest.raises(ValueError, match="line 2 of the vocabulary file .* is blank"):
        torch_lm.read_vocab(v)
    v.write_text("a\nb\na\n")
    with pytest.raises(ValueError, match="lists 'a' twice \\(entries 1 and 3\\)"):
        torch_lm.read_vocab(v)
    j = tmp_path / "v.json"
    j.write_text('{"a": 1}')
    with pytest.raises(ValueError, match="not a JSON list of strings"):
        torch_lm.read_vocab(j)


def test_pickled_module_is_refused(tmp_path):
    w = tmp_path / "whole.pt"
    torch.save(ExampleLM("lstm", len(VOCAB), 4, 4, 1, tied=False), w)
    v = tmp_path / "v.txt"
    v.write_text("".join(t + "\n" for t in VOCAB))
    with pytest.raises(ValueError, match="pickled Python object"):
        torch_lm.load(w, v)


def torch_twin(lm, sd):
    """A PyTorch module built as export-torch's line says, loaded with the exported weights."""
    p = lm.params
    model = ExampleLM(p.cell, len(lm.vocab), p.input_size, p.hidden_size, len(lm.layers), False)
    if p.cell == "rnn":
        model.rnn = nn.RNN(p.input_size, p.hidden_size, len(lm.layers), nonlinearity=p.nonlinearity)
    model.double().load_state_dict(sd)  # float64 first: loading into float32 would round
    return model


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("layers", [1, 2])
def test_export_round_trip(tmp_path, capsys, cell, layers):
    from seqviz.core.params import Params
    from seqviz.models.lm import RNNLM, random_lm

    vocab = ("<s>", "</s>", *WORDS[:-1])
    base = random_lm(vocab, cell, hidden=9, emb=5, seed=layers,
                     variant="pytorch" if cell == "gru" else "textbook")  # fmt: skip
    upper = tuple(
        Params.random(cell, 9, 9, seed=10 + k, scale=2.0,
                      variant="pytorch" if cell == "gru" else "textbook")
        for k in range(layers - 1)
    )  # fmt: skip
    lm = RNNLM(base.params, base.embedding * 3, base.out_weight * 3, base.out_bias, vocab,
               name="mine", upper=upper)  # fmt: skip
    src = tmp_path / "mine.npz"
    lm.save(src)
    out = tmp_path / "mine.pt"
    assert main(["export-torch", str(src), str(out)]) == 0
    said = capsys.readouterr().out
    assert f"num_layers={layers}" in said and "mine.vocab.txt" in said
    vocab_file = tmp_path / "mine.vocab.txt"
    assert tuple(vocab_file.read_text().split("\n")[:-1]) == vocab
    # PyTorch computes the seqviz model's distributions from the exported file
    model = torch_twin(lm, torch.load(out, weights_only=True))
    text = "the cat sat on a mat"
    with torch.no_grad():
        ids = torch.tensor([0, *(vocab.index(w) for w in text.split())])
        ref = torch.softmax(model(ids), dim=-1).numpy()
    ours = np.exp(read(lm, text).logp)
    np.testing.assert_allclose(ref, ours, atol=1e-12, rtol=0)
    # and reading the export back gives the same model
    back, _ = torch_lm.load(out, vocab_file)
    assert back.bos == "<s>" and back.eos == "</s>" and len(back.layers) == layers
    np.testing.assert_allclose(np.exp(read(back, text).logp), ours, atol=1e-12, rtol=0)


def test_export_refuses_textbook_gru(tmp_path, capsys):
    code = main(["export-torch", "agreement-gru", str(tmp_path / "g.pt")])
    err = capsys.readouterr().err
    assert code == 2 and "textbook GRU" in err and "--variant pytorch" in err
    assert not (tmp_path / "g.pt").exists()


def test_export_shipped_lstm(tmp_path, capsys):
    out = tmp_path / "agreement.pt"
    assert main(["export-torch", "agreement", str(out), "--vocab", str(tmp_path / "v.json")]) == 0
    vocab = json.loads((tmp_path / "v.json").read_text())
    back, _ = torch_lm.load(out, tmp_path / "v.json")
    from seqviz import models

    lm = models.load("agreement", kind="lm")
    assert tuple(vocab) == lm.vocab
    probs = lm.next_token_probs("the keys to the cabinet")
    again = back.next_token_probs("the keys to the cabinet")
    for w in ("is", "are"):
        assert abs(probs[w] - again[w]) < 1e-9


def test_app_and_models_add_take_a_pytorch_lm(tmp_path, monkeypatch, capsys):
    from types import SimpleNamespace

    from seqviz import models
    from seqviz.commands.app import resolve
    from seqviz.scenes.gates import load_model

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    torch.manual_seed(4)
    model = ExampleLM("lstm", len(VOCAB), 6, 8, 2, tied=False)
    w, v = save(tmp_path, model)
    args = SimpleNamespace(scene=None, settings=[], weights=str(w), vocab=str(v))
    name, values = resolve(args)
    assert name == "gates" and values.model == "file" and values.weights.endswith(".npz")
    assert str(tmp_path / "cache") in values.weights
    assert "2-layer LSTM" in capsys.readouterr().out
    check_same(load_model(values), model, SENTENCES[0])
    from dataclasses import replace

    from seqviz.scenes.gates import inputs

    assert inputs(replace(values, text="the cat"))[3] == ("<eos>", "the", "cat")
    assert main(["models", "add", "torchy", str(w), "--vocab", str(v)]) == 0
    check_same(models.load("torchy", kind="lm"), model, SENTENCES[1])
    assert main(["models", "add", "nov", str(w)]) == 2
    assert "give its vocabulary with --vocab" in capsys.readouterr().err


def test_units_read_a_pytorch_lm(tmp_path, capsys):
    torch.manual_seed(5)
    model = ExampleLM("gru", len(VOCAB), 6, 7, 2, tied=False)
    w, v = save(tmp_path, model)
    text = tmp_path / "t.txt"
    text.write_text("\n".join(SENTENCES) + "\nthe zebra sat\n")
    assert main(["units", "--model", str(w), "--vocab", str(v), "--track", "position",
                 "--text", str(text), "--json"]) == 0  # fmt: skip
    got = capsys.readouterr()
    out = json.loads(got.out)
    assert "2-layer GRU" in got.err and out["layers"] == 2
    assert len(out["units"]) == 10 and out["units"][0]["steps"] == 4 + 22  # 4 sentences + <s>s
    assert main(["units", "--model", str(w), "--track", "position"]) == 2
    assert "give its vocabulary with --vocab" in capsys.readouterr().err


def test_same_shaped_untied_parts_are_told_apart_by_order(tmp_path):
    torch.manual_seed(6)
    model = ExampleLM("lstm", len(VOCAB), 9, 9, 1, tied=False, bias=False)
    w, v = save(tmp_path, model)
    lm, line = torch_lm.load(w, v)
    assert "told apart by their order" in line and "no bias" in line
    check_same(lm, model, SENTENCES[2])

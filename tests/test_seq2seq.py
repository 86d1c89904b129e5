"""The seq2seq model: gradients against finite differences and PyTorch, files, the task."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from seqviz.models.seq2seq import Seq2Seq, Seq2SeqConfig
from seqviz.tasks import translation as tr

SRC = ("a", "b", "c", "d", "e")
TGT = ("<s>", "</s>", "x", "y", "z", "w")
BATCH = [
    (np.array([0, 3, 1, 4]), np.array([2, 5, 3])),
    (np.array([2, 2, 1]), np.array([4, 4, 5, 2])),
]


def _model(cell: str, attention: bool, seed: int = 3, reverse: bool = False) -> Seq2Seq:
    cfg = Seq2SeqConfig(cell=cell, hidden=5, emb=4, attention=attention, reverse=reverse)
    m = Seq2Seq.random(cfg, SRC, TGT, seed=seed)
    # larger weights than the initialisation, so that every term of the gradient matters
    for v in m.weights.values():
        v *= 2.0
    return m


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("attention", [True, False])
def test_gradient_matches_finite_differences(cell: str, attention: bool) -> None:
    m = _model(cell, attention, reverse=cell == "gru")
    _, grads = m.loss_and_grads(BATCH)
    rng = np.random.default_rng(0)
    eps = 1e-6
    for name, w in m.weights.items():
        for _ in range(3):
            i = tuple(int(rng.integers(s)) for s in w.shape)
            old = w[i]
            w[i] = old + eps
            up = m.loss_and_grads(BATCH)[0]
            w[i] = old - eps
            down = m.loss_and_grads(BATCH)[0]
            w[i] = old
            num = (up - down) / (2 * eps)
            assert grads[name][i] == pytest.approx(num, rel=1e-5, abs=1e-8), (name, i)


def _torch_loss(torch, m: Seq2Seq, batch):  # type: ignore[no-untyped-def]
    w = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in m.weights.items()}
    cell = m.config.cell
    mods = {}
    for side in ("enc", "dec"):
        cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[cell]
        mod = cls(m.config.emb, m.config.hidden, dtype=torch.float64)
        mods[side] = mod
    total, n = 0, 0

    def run(side, x, h0):  # type: ignore[no-untyped-def]
        # functional call so that the gradient lands on our own tensors
        params = {f"{k}_l0": w[f"{side}_{k}"] for k in ("weight_ih", "weight_hh", "bias_ih",
                                                          "bias_hh")}  # fmt: skip
        hx = h0[None, None]
        if cell == "lstm":
            hx = (hx, torch.zeros_like(hx))
        out, _ = torch.func.functional_call(mods[side], params, (x[:, None], hx))
        return out[:, 0]

    d = m.config.hidden
    for src, tgt in batch:
        src = m.reading_order(src).copy()
        tgt_out = torch.tensor(np.append(tgt, 1))
        tgt_in = torch.tensor(np.concatenate([[0], tgt]))
        H = run("enc", w["src_embedding"][torch.tensor(src)], torch.zeros(d, dtype=torch.float64))
        S = run("dec", w["tgt_embedding"][tgt_in], H[-1])
        if m.config.attention:
            A = torch.softmax(S @ (H @ w["attn_weight"].T).T, dim=1)
            o = torch.tanh(torch.cat([A @ H, S], 1) @ w["comb_weight"].T + w["comb_bias"])
        else:
            o = S
        logits = o @ w["out_weight"].T + w["out_bias"]
        logits = torch.cat([torch.full_like(logits[:, :1], -torch.inf), logits[:, 1:]], 1)
        logp = torch.log_softmax(logits, 1)
        total = total - logp[torch.arange(len(tgt_out)), tgt_out].sum()
        n += len(tgt_out)
    loss = total / n
    loss.backward()
    return float(loss.detach()), {k: v.grad.numpy() for k, v in w.items()}


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("attention", [True, False])
def test_gradient_matches_torch(cell: str, attention: bool) -> None:
    torch = pytest.importorskip("torch")
    m = _model(cell, attention, reverse=cell == "lstm")
    loss, grads = m.loss_and_grads(BATCH)
    t_loss, t_grads = _torch_loss(torch, m, BATCH)
    assert loss == pytest.approx(t_loss, abs=1e-12)
    for k, g in grads.items():
        np.testing.assert_allclose(g, t_grads[k], rtol=0, atol=1e-9, err_msg=k)


def test_save_load_roundtrip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = _model("gru", True)
    m.meta["note"] = "x"
    p = m.save(tmp_path / "m.npz")
    back = Seq2Seq.load(p)
    assert back.config == m.config and back.tgt_vocab == TGT and back.meta["note"] == "x"
    for k, v in m.weights.items():
        np.testing.assert_array_equal(back.weights[k], v)
    assert back.loss_and_grads(BATCH)[0] == m.loss_and_grads(BATCH)[0]


def test_load_refuses_other_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    np.savez(tmp_path / "x.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="not a seq2seq model"):
        Seq2Seq.load(tmp_path / "x.npz")
    with pytest.raises(ValueError, match="no such model file"):
        Seq2Seq.load(tmp_path / "missing.npz")


def test_bad_config() -> None:
    with pytest.raises(ValueError, match="unknown cell"):
        Seq2SeqConfig(cell="tree")
    with pytest.raises(ValueError, match="hidden must be"):
        Seq2SeqConfig(hidden=0)


# --- the task -------------------------------------------------------------------------------


def test_task_is_deterministic_and_in_range() -> None:
    a = tr.pairs(200, seed=4, min_len=3, max_len=35)
    assert a == tr.pairs(200, seed=4, min_len=3, max_len=35)
    assert a != tr.pairs(200, seed=5, min_len=3, max_len=35)
    lens = [len(s.split()) for s, _ in a]
    assert min(lens) >= 3 and max(lens) <= 35 and max(lens) >= 30
    assert len(tr.pairs(5, 0, 3, 3)[0][0].split()) == 3


def test_task_reorders_and_agrees() -> None:
    verbs = {**tr.TRANSITIVE, **tr.INTRANSITIVE}
    moved = 0
    for src, tgt in tr.pairs(300, seed=1):
        s, t = src.split(), tgt.split()
        # the verb is last and carries the number of the subject (the first noun), which the
        # source verb does not show
        first_noun = next(w for w in t if w.rstrip("j") in tr.NOUNS.values())
        assert t[-1].endswith("an") == first_noun.endswith("j")
        v = next(i for i, w in enumerate(s) if w in verbs)
        assert t[-1] in (verbs[s[v]] + "a", verbs[s[v]] + "an")
        moved += v < len(s) - 1  # the verb moves from the middle to the end
        assert "the" in s and "the" not in t
    assert moved > 200


def test_splits_are_disjoint() -> None:
    train = {s for s, _ in tr.pairs(2000, seed=0, max_len=8)}
    held = {s for s, _ in tr.pairs(300, seed=0, max_len=8, split="heldout")}
    assert train and held and not train & held
    assert all(tr.split_of(s) == "heldout" for s in held)


def test_task_bad_lengths() -> None:
    with pytest.raises(ValueError, match="min-len <= max-len"):
        tr.pairs(3, min_len=9, max_len=4)
    with pytest.raises(ValueError, match="<= 40"):
        tr.pairs(3, max_len=99)


def test_task_module_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    run = [sys.executable, "-m", "seqviz.tasks.translation", "--pairs", "5", "--seed", "2"]
    out = subprocess.run(run + ["--min-len", "4", "--max-len", "9"], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    lines = out.splitlines()
    assert len(lines) == 5 and all("\t" in ln for ln in lines)
    assert all(4 <= len(ln.split("\t")[0].split()) <= 9 for ln in lines)
    f = tmp_path / "p.tsv"
    subprocess.run(run + ["--min-len", "4", "--max-len", "9", "--out", str(f)], check=True)
    assert f.read_text() == out
    bad = subprocess.run(run + ["--min-len", "1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "min-len" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_reference_parser_agrees_with_the_generator() -> None:
    for src, tgt in tr.pairs(400, seed=9, max_len=40):
        assert tr.reference(src) == tgt
    assert tr.reference("the dog") is None
    assert tr.reference("the dog slept the cat") is None
    assert tr.reference("dog the slept") is None
    assert tr.reference("the dogs near the box saw the cat") == "hundoj skatolo apud kato vidan"


# --- behaviours a one-line change would break ------------------------------------------------


@pytest.mark.parametrize("attention", [True, False])
def test_lstm_decoding_starts_from_the_context_with_a_zero_cell_state(attention: bool) -> None:
    """Step-by-step decoding (greedy, beam, the scene) starts where the teacher-forced pass
    does: h = the encoder's last state, c = 0. The teacher-forced pass is checked against
    torch.nn.LSTM with c0 = 0 above; a decoder whose cell state started at the context (or
    anything else) gives other log-probabilities from the first step on."""
    m = _model("lstm", attention)
    src, tgt = BATCH[0]
    tgt_in = np.concatenate([[0], tgt]).astype(np.intp)
    H = m.encode(src)
    h, c = m.start_state(H)
    np.testing.assert_array_equal(h, H[-1])
    assert c is not None and c.shape == H[-1].shape and not c.any()
    want = m.run(src, tgt_in).logp
    state = (h, c)
    for t, token in enumerate(tgt_in):
        state, logp, _ = m.decode_step(H, state, int(token))
        np.testing.assert_allclose(logp, want[t], rtol=0, atol=1e-12, err_msg=f"step {t}")


def _always_says_w(teacher_forcing: float) -> Seq2Seq:
    """A model whose own greedy guess is always w (id 5), whatever it read."""
    m = _model("gru", True)
    m.weights["out_bias"][5] = 50.0
    m.teacher_forcing = teacher_forcing
    return m


def test_scheduled_sampling_feeds_the_reference_with_the_teacher_forcing_probability() -> None:
    """--teacher-forcing p: each decoder input is the reference token with probability p and
    the model's own guess otherwise (not the other way round). The model always guesses w and
    the reference never holds w, so the loss tells which input every position got."""
    src = np.array([0, 3, 1, 4])
    tgt = np.array([2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 3, 4])  # never w
    reference_in = np.concatenate([[0], tgt]).astype(np.intp)
    own_in = np.array([0] + [5] * len(tgt), dtype=np.intp)
    tgt_out = np.append(tgt, 1)

    def loss_with(tgt_in):  # mean cross-entropy per target token, independently of the coin
        logp = m.run(src, tgt_in).logp
        return -logp[np.arange(len(tgt_out)), tgt_out].mean()

    m = _always_says_w(0.0)
    assert m.loss_and_grads([(src, tgt)])[0] == pytest.approx(loss_with(own_in), abs=1e-12)
    assert abs(loss_with(own_in) - loss_with(reference_in)) > 0.1  # the two are told apart
    m = _always_says_w(1.0 - 1e-12)  # below 1: the coin is thrown, and always says reference
    assert m.loss_and_grads([(src, tgt)])[0] == pytest.approx(loss_with(reference_in), abs=1e-12)
    # p = 0.3: position t+1 gets the reference exactly where the coin's draw is below 0.3
    m = _always_says_w(0.3)
    m.rng = np.random.default_rng(7)
    draws = np.random.default_rng(7).random(len(tgt))
    mixed = np.where(draws < 0.3, reference_in[1:], own_in[1:])
    assert 0 < (draws < 0.3).sum() < len(tgt)
    expected = loss_with(np.concatenate([[0], mixed]).astype(np.intp))
    assert m.loss_and_grads([(src, tgt)])[0] == pytest.approx(expected, abs=1e-12)


def test_a_source_of_exactly_the_word_limit_is_translated() -> None:
    from seqviz.models.translate import source_ids

    m = _model("gru", True)
    m.meta["max_source_len"] = 4
    np.testing.assert_array_equal(source_ids(m, "a b c d"), [0, 1, 2, 3])
    with pytest.raises(ValueError, match=r"has 5 words; the model 'seq2seq' accepts at most 4\."):
        source_ids(m, "a b c d e")
    assert len(source_ids(m, "a b", max_len=2)) == 2
    with pytest.raises(ValueError, match="has 3 words.*at most 2"):
        source_ids(m, "a b c", max_len=2)

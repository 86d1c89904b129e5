"""The recurrent LM: protocol, files, the shipped agreement model, and decoding on it."""

from __future__ import annotations

import json
import math
import zipfile

import numpy as np
import pytest

from seqviz import cli, models
from seqviz.decoding import BeamSearch, Greedy, LanguageModel, Sampler
from seqviz.models.lm import RNNLM, random_lm
from seqviz.tasks.grammar import corpus, sentence, subject_is_plural


@pytest.fixture(scope="module")
def lm() -> RNNLM:
    return models.load("agreement")


def test_shipped_files_are_small_and_present():
    shipped = models.get("agreement").path
    assert shipped.stat().st_size < 300_000
    text = (shipped.parent / "agreement.txt").read_text()
    assert len(text.encode()) < 300_000
    # The committed corpus is exactly what the documented command generates.
    assert text == "\n".join(corpus(5000, seed=0)) + "\n"


def test_shipped_model_satisfies_protocol(lm):
    assert isinstance(lm, LanguageModel)
    assert lm.level == "word" and lm.params.cell == "lstm"
    assert lm.vocab[lm.bos_id] == "<s>" and lm.vocab[lm.eos_id] == "</s>"
    lp = lm.logprobs([lm.start([])])
    assert lp.shape == (1, len(lm.vocab))
    assert math.isclose(np.exp(lp).sum(), 1.0)
    assert lp[0, lm.bos_id] == -np.inf  # <s> is never predicted


def test_advance_matches_start_on_longer_prompt(lm):
    ids = lm.encode("the keys to the")
    s = lm.start(ids[:2])
    for t in ids[2:]:
        (s,) = lm.advance([s], [t])
    assert np.allclose(s.logp, lm.start(ids).logp)
    assert np.allclose(s.h, lm.start(ids).h)


def test_batched_advance_equals_one_by_one(lm):
    s0, s1 = lm.start(lm.encode("the keys")), lm.start(lm.encode("the key"))
    a, b = lm.advance([s0, s1], [lm.index["to"], lm.index["near"]])
    (a1,) = lm.advance([s0], [lm.index["to"]])
    (b1,) = lm.advance([s1], [lm.index["near"]])
    assert np.allclose(a.logp, a1.logp) and np.allclose(b.c, b1.c)


@pytest.mark.parametrize(
    ("prompt", "right", "wrong"),
    [
        ("the keys to the cabinet", "are", "is"),
        ("the key to the cabinets", "is", "are"),
        ("the keys to the cabinet near the door", "are", "is"),
        ("the dog near the cats", "is", "are"),
        ("the teachers that like the student", "are", "is"),
        ("the teacher that likes the students", "is", "are"),
    ],
)
def test_shipped_model_agrees_across_distractors(lm, prompt, right, wrong):
    p = lm.next_token_probs(prompt)
    assert p[right] > 10 * p[wrong]


def test_shipped_model_prefers_are_on_heldout_agreement(lm):
    """On fresh grammar sentences, the verb's number follows the subject, not the nearest noun."""
    rng = np.random.default_rng(12345)
    right = total = 0
    for _ in range(200):
        words = sentence(rng)
        verb_at = next(i for i, w in enumerate(words) if w in ("is", "are", "was", "were"))
        if verb_at < 4:  # no distractor in between
            continue
        p = lm.next_token_probs(" ".join(words[:verb_at]))
        plural = p.get("are", 0) + p.get("were", 0)
        singular = p.get("is", 0) + p.get("was", 0)
        right += (plural > singular) == subject_is_plural(words)
        total += 1
    assert total > 100 and right / total > 0.95


def test_beam_output_is_grammatical(lm):
    for width in (1, 3, 8):
        res = BeamSearch(lm, width=width, max_len=25).run()
        for h in res.hypotheses[:3]:
            words = res.words(h)
            assert h.finished and words[-1] == "</s>" and words[0] == "the"
            verb = next(w for w in words if w in ("is", "are", "was", "were"))
            assert (verb in ("are", "were")) == subject_is_plural(words)
    res = BeamSearch(lm, "the keys to the cabinet", width=4).run()
    assert res.words(res.best)[0] in ("are", "were")


def test_decoders_run_on_the_lm(lm):
    g = Greedy(lm, "the keys", max_len=15).run()
    b1 = BeamSearch(lm, "the keys", width=1, max_len=15).run()
    assert g.best.tokens == b1.best.tokens
    s = Sampler(lm, "the keys", top_k=5, top_p=0.9, seed=2, samples=4).run()
    assert len(s.samples) == 4
    # Distribution helper on a pruned node of the tree.
    search = BeamSearch(lm, width=2)
    search.step()
    st = search.step()
    d = search.distribution(st.pruned[0].id, temperature=0.7, top_k=5, top_p=0.8)
    assert d.in_top_p.sum() <= d.in_top_k.sum() <= 5


def test_trace_for_the_gates_scene(lm):
    tr = lm.trace("the keys to the cabinet")
    assert tr.h.shape == (6, lm.params.hidden_size)
    assert tr.gates.shape == (6, 4, lm.params.hidden_size)


def test_matches_pytorch_lstm(lm):
    torch = pytest.importorskip("torch")
    ids, x = lm.inputs("the keys to the cabinet")
    rnn = torch.nn.LSTM(lm.params.input_size, lm.params.hidden_size).double()
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(rnn, f"{name}_l0").copy_(torch.tensor(np.array(getattr(lm.params, name))))
        out, _ = rnn(torch.tensor(np.array(x))[:, None, :])
        logits = out[-1, 0].numpy() @ lm.out_weight.T + lm.out_bias
    logits[lm.bos_id] = -np.inf
    want = logits - np.log(np.exp(logits - logits.max()).sum()) - logits.max()
    assert np.allclose(lm.start(ids[1:]).logp, want, atol=1e-10)


# --- files ---------------------------------------------------------------------------------
def test_save_load_roundtrip(tmp_path):
    m = random_lm(("<s>", "</s>", "a", "b"), "gru", hidden=6, emb=3, seed=4, variant="pytorch")
    path = m.save(tmp_path / "m.npz")
    back = RNNLM.load(path)
    assert back.vocab == m.vocab and back.params.variant == "pytorch"
    assert np.array_equal(back.embedding, m.embedding)
    s = back.start([2])
    assert np.allclose(s.logp, m.start([2]).logp)
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]  # no temp files left behind


def test_char_level_encode():
    m = random_lm(("<s>", "</s>", " ", "a", "b"), hidden=4, emb=2, level="char")
    assert m.encode("ab a") == [3, 4, 2, 3]
    with pytest.raises(ValueError, match="prompt character 'z'"):
        m.encode("az")


def _bad_files(tmp_path):
    good = random_lm(("<s>", "</s>", "a"), hidden=4, emb=2).to_dict()
    text = tmp_path / "text.npz"
    text.write_text("hello, not a zip")
    trunc = tmp_path / "trunc.npz"
    np.savez(trunc, **good)
    trunc.write_bytes(trunc.read_bytes()[:200])
    missing = tmp_path / "missing_keys.npz"
    np.savez(missing, **{k: v for k, v in good.items() if k != "out_weight"})
    shapes = tmp_path / "shapes.npz"
    np.savez(shapes, **{**good, "out_weight": np.zeros((3, 5))})
    nan = tmp_path / "nan.npz"
    np.savez(nan, **{**good, "embedding": np.full((3, 2), np.nan)})
    vocab = tmp_path / "vocab.npz"
    np.savez(vocab, **{**good, "vocab": np.array(["a", "b", "c"])})
    params_only = tmp_path / "params_only.npz"
    np.savez(params_only, weight_ih_l0=np.zeros((16, 2)), weight_hh_l0=np.zeros((16, 4)))
    return [
        (tmp_path / "nope.npz", "cannot read the model file"),
        (tmp_path, "cannot read the model file"),
        (text, "is not a seqviz language model"),
        (trunc, "is not a seqviz language model"),
        (missing, "lacks out_weight"),
        (params_only, "lacks embedding, out_weight, out_bias, vocab"),
        (shapes, "out_weight has shape"),
        (nan, "inf or nan"),
        (vocab, "must hold <s> and </s>"),
    ]


def test_bad_model_files_one_sentence(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("seqviz.commands.decode",))
    for path, match in _bad_files(tmp_path):
        with pytest.raises(ValueError, match=match):
            RNNLM.load(path)
        assert cli.main(["decode", "--model", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("seqviz: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err


def test_zip_without_arrays_is_rejected(tmp_path):
    path = tmp_path / "empty.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "hi")
    with pytest.raises(ValueError):
        RNNLM.load(path)


def test_decode_cli_on_shipped_model(monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("seqviz.commands.decode",))
    args = ["decode", "--model", "agreement", "--prompt", "the keys to the cabinet"]
    assert cli.main([*args, "--strategy", "beam", "--width", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best"]["tokens"][0] in ("are", "were") and data["best"]["tokens"][-1] == "</s>"
    assert cli.main([*args, "--strategy", "sample", "--samples", "2", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["samples"]) == 2
    assert cli.main([*args[:3], "--prompt", "the keys to the unicorn"]) == 2
    assert "'unicorn' is not in the vocabulary" in capsys.readouterr().err


def test_a_prompt_that_ends_in_the_end_token_is_refused_in_one_sentence():
    m = random_lm(("<s>", "</s>", "a", "b"), "gru", hidden=4, emb=2, seed=1)
    for prompt in ("a b </s>", "</s>", "<s> a </s>"):
        with pytest.raises(ValueError, match=r"^the prompt ends with </s>, so there is nothing "
                           r"left to decode\.$"):  # fmt: skip
            m.encode(prompt)
    # only the end counts: </s> inside a prompt is a token like any other
    assert m.encode("a </s> b") == [m.index["a"], m.eos_id, m.index["b"]]
    with pytest.raises(ValueError, match="ends with </s>"):
        BeamSearch(m, "b </s>", width=2)

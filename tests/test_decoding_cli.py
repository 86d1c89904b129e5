"""`seqviz decode` and bigram-file loading: JSON shapes, and one clear sentence for bad input."""

from __future__ import annotations

import json
import math

import pytest

from seqviz import cli
from seqviz.decoding import TOY_BIGRAM, load_bigram


@pytest.fixture
def decode(monkeypatch, capsys):
    """Run `seqviz decode ARGS` through cli.main; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("seqviz.commands.decode",))

    def call(*args: str):
        code = cli.main(["decode", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return call


def write(tmp_path, text: str, name: str = "model.json"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_default_model_is_the_toy_and_beam_json_shape(decode):
    code, out, err = decode("--strategy", "beam", "--width", "2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"best", "hypotheses", "stopped"}
    assert data["stopped"] == "no live hypotheses"
    assert data["best"]["tokens"] == ["a", "small", "cat", "</s>"]
    assert f"{math.exp(data['best']['logprob']):.3f}" == "0.292"
    for h in data["hypotheses"]:
        assert set(h) == {"tokens", "logprob", "score", "finished"}
        assert "<s>" not in h["tokens"]
        assert h["finished"] == (h["tokens"][-1] == "</s>")


def test_greedy_json(decode):
    code, out, _ = decode("--strategy", "greedy", "--json")
    data = json.loads(out)
    assert data["best"]["tokens"] == ["the", "dog", "</s>"]
    assert f"{math.exp(data['best']['logprob']):.3f}" == "0.140"
    assert len(data["hypotheses"]) == 1


def test_sample_json_is_reproducible(decode):
    args = ("--strategy", "sample", "--samples", "6", "--seed", "4", "--top-p", "0.9", "--json")
    _, out1, _ = decode(*args)
    _, out2, _ = decode(*args)
    data = json.loads(out1)
    assert out1 == out2
    assert set(data) == {"samples"} and len(data["samples"]) == 6
    for s in data["samples"]:
        assert set(s) == {"tokens", "logprob"}
        # top-p 0.9 removes "</s>" at the start: no sample is empty.
        assert s["tokens"][0] in ("the", "a")


def test_length_normalised_beam_and_prompt(decode):
    code, out, _ = decode("--prompt", "the", "--width", "2", "--alpha", "0.6", "--json")
    data = json.loads(out)
    assert code == 0 and data["best"]["tokens"] == ["cat", "</s>"]
    h = data["hypotheses"][0]
    assert math.isclose(h["score"], h["logprob"] / len(h["tokens"]) ** 0.6)


def test_text_output(decode):
    code, out, _ = decode("--strategy", "beam", "--width", "3")
    assert code == 0
    assert "a small cat </s>" in out and "0.292" in out


def test_bigram_file_roundtrip(decode, tmp_path):
    path = write(tmp_path, json.dumps(TOY_BIGRAM))
    code, out, _ = decode("--bigram", path, "--width", "2", "--json")
    assert json.loads(out)["best"]["tokens"] == ["a", "small", "cat", "</s>"]


BAD_TABLES = [
    ('{"<s>": {"the": 0.5, ', "not valid JSON"),
    ('["<s>", "the"]', "must be a JSON object"),
    ('{"<s>": {"the": 0.5, "</s>": 0.4}, "the": {"</s>": 1.0}}', "sums to 0.9, not 1"),
    (
        '{"<s>": {"the": 0.5, "dog": 0.5}, "the": {"</s>": 1.0}}',
        "'dog' follows '<s>' but has no row",
    ),
    ('{"<s>": {"the": 1.5, "</s>": -0.5}, "the": {"</s>": 1.0}}', r"outside \[0, 1\]"),
    ('{"<s>": {"the": "half", "</s>": 0.5}, "the": {"</s>": 1.0}}', "not a number"),
    ('{"the": {"</s>": 1.0}}', "no row for the start token"),
    ('{"<s>": {"</s>": 1.0}, "</s>": {"</s>": 1.0}}', "has a row for </s>"),
]


@pytest.mark.parametrize(("text", "match"), BAD_TABLES)
def test_bad_bigram_files(tmp_path, decode, text, match):
    path = write(tmp_path, text)
    with pytest.raises(ValueError, match=match):
        load_bigram(path)
    code, out, err = decode("--bigram", path)
    assert code == 2 and out == ""
    assert err.startswith("seqviz: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_row_tolerance(tmp_path):
    ok = write(tmp_path, '{"<s>": {"the": 0.5000004, "</s>": 0.5}, "the": {"</s>": 1.0}}')
    load_bigram(ok)
    bad = write(tmp_path, '{"<s>": {"the": 0.500002, "</s>": 0.5}, "the": {"</s>": 1.0}}')
    with pytest.raises(ValueError, match="tolerance"):
        load_bigram(bad)


def test_unreadable_files(tmp_path, decode):
    for path in (tmp_path / "missing.json", tmp_path):
        code, _, err = decode("--bigram", str(path))
        assert code == 2 and "cannot read the bigram file" in err
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = decode("--bigram", str(binary))
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("--width", "0"), "--width must be from 1 to 100"),
        (("--max-len", "0"), "--max-len must be from 1 to 1,000"),
        (("--alpha", "-1"), "alpha"),
        (("--strategy", "sample", "--top-k", "0"), "top-k must be"),
        (("--strategy", "sample", "--top-p", "0"), r"top-p must lie in \(0, 1\]"),
        (("--strategy", "sample", "--top-p", "1.01"), "--top-p must be a finite number from 0"),
        (("--strategy", "sample", "--temperature", "0"), "temperature must be"),
        (("--strategy", "sample", "--temperature", "-2"), "temperature must be"),
        (("--strategy", "sample", "--samples", "0"), "--samples must be from 1 to 10,000"),
        (("--prompt", "the unicorn"), "'unicorn' is not in the vocabulary"),
        (("--prompt", "the dog </s>"), "ends with </s>"),
    ],
)
def test_bad_settings_one_sentence(decode, args, match):
    import re

    code, out, err = decode(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and re.search(match, err), err


def test_seqviz_run_beam_prints_the_lesson_table(monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("seqviz.commands.run",))
    assert cli.main(["run", "beam"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln.split() for ln in lines if "p = " in ln]
    assert [r[-1] for r in rows] == ["0.140", "0.140", "0.292", "0.292"]
    assert "the dog </s>" in lines[1] and "a small cat </s>" in lines[3]
    assert cli.main(["run", "beam", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [round(r["p"], 3) for r in data] == [0.14, 0.14, 0.292, 0.292]
    assert cli.main(["run", "beam", "--widths", "0"]) == 2
    assert "--widths must be from 1 to 100" in capsys.readouterr().err


def test_exact_strategy_json_and_budget(decode):
    code, out, err = decode("--strategy", "exact", "--json")
    assert code == 0, err
    data = json.loads(out)
    # the toy's optimum by hand: 0.4 * 0.9 * 0.9 * 0.9 beats every other finished sentence
    assert data["best"]["tokens"] == ["a", "small", "cat", "</s>"]
    assert math.isclose(data["best"]["logprob"], math.log(0.4 * 0.9 * 0.9 * 0.9))
    assert data["proved_optimal"] and data["stopped"] == "optimal"
    code, out, err = decode("--strategy", "exact", "--node-budget", "1", "--max-len", "6")
    assert code == 0 and "budget of 1 nodes" in out and "--node-budget" in out


def test_google_penalty_option(decode):
    code, out, err = decode("--width", "3", "--alpha", "1", "--penalty", "google", "--json")
    assert code == 0, err
    for h in json.loads(out)["hypotheses"]:
        n = len(h["tokens"])
        assert math.isclose(h["score"], h["logprob"] / ((5 + n) / 6))


def test_knob_options(decode):
    code, out, err = decode("--min-len", "3", "--width", "3", "--json")
    assert code == 0, err
    done = [h for h in json.loads(out)["hypotheses"] if h["finished"]]
    assert done and all(len(h["tokens"]) - 1 >= 3 for h in done)
    code, out, err = decode("--width", "4", "--diverse-groups", "2", "--diversity", "3", "--json")
    assert code == 0, err
    code, out, err = decode("--width", "3", "--diverse-groups", "2")
    assert code != 0 and "multiple of the diverse groups" in err
    code, out, err = decode("--repetition-penalty", "0.5")
    assert code != 0 and "--repetition-penalty" in err


def test_many_samples_histogram(decode):
    from collections import Counter

    code, out, err = decode("--strategy", "sample", "--samples", "400", "--seed", "3", "--json")
    assert code == 0, err
    data = json.loads(out)
    h = data["histogram"]
    drawn = Counter(" ".join(s["tokens"]) for s in data["samples"])
    assert h["distinct_sentences"] == len(drawn)
    assert math.isclose(h["repeats"], 1 - len(drawn) / 400)
    assert {r["tokens"]: r["count"] for r in h["sentences"]} == dict(drawn)
    # frequencies track the toy's probabilities: 'the dog </s>' has 0.5 x 0.4 x 0.7 = 0.14
    freq = {r["tokens"]: r["frequency"] for r in h["sentences"]}
    assert abs(freq["the dog </s>"] - 0.14) < 0.06
    p = {r["tokens"]: r["p"] for r in h["sentences"]}
    assert math.isclose(p["the dog </s>"], 0.14)
    assert (
        h["beam"]["tokens"] == "a small cat </s>"
        and h["beam"]["sampled"] == drawn["a small cat </s>"]
    )
    unigrams = [w for s in data["samples"] for w in s["tokens"]]
    assert math.isclose(h["distinct_n"]["1"], len(set(unigrams)) / len(unigrams))


def test_defaults_are_the_apps_and_the_chapters(decode):
    """`seqviz decode` with no options searches as the decoding scene opens: width 2 and the
    chapter's length normalisation alpha 0.6 (it used width 3, alpha 0)."""
    from seqviz.scenes import get_scene

    scene = get_scene("decoding").defaults()
    assert (scene.width, scene.alpha) == (2, 0.6)
    code, out, _ = decode("--json")
    _, plain, _ = decode("--width", "2", "--alpha", "0.6", "--json")
    assert code == 0 and out == plain
    _, out3, _ = decode("--width", "3", "--alpha", "0", "--json")
    assert out3 != out  # the old defaults give another answer: the check can fail

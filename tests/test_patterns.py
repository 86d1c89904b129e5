"""Patterns (text -> one number per position) and units ranked by them."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.inside import patterns
from seqviz.inside.units import rank_by_pattern

CODE = "def f(x):\n    s = \"a(b\" + 'c'  # say (hi)\n    return [x, {1: 2}]\n"


def marked(text: str, values: np.ndarray) -> str:
    """The characters where the pattern is 1, others as '.', to compare with a hand-made mask."""
    return "".join(c if v == 1 or c == "\n" else "." for c, v in zip(text, values, strict=True))


def test_string_comment_and_brackets_by_hand():
    s, c, b = patterns.code_state(CODE)
    lines = CODE.split("\n")
    assert marked(CODE, s).split("\n")[1] == "." * 8 + '"a(b"' + "..." + "'c'" + "." * 12
    assert marked(CODE, c).split("\n")[1] == "." * 21 + "# say (hi)"
    # brackets: 1 inside f(...), the "(" in the string and in the comment do not count
    depth = {i: b[i] for i, ch in enumerate(CODE)}
    assert depth[CODE.index("x")] == 1 and depth[CODE.index(":")] == 0
    assert all(v == 0 for i, v in depth.items() if CODE[i] in "ab()" and i > len(lines[0]) and
               i < len(lines[0]) + len(lines[1]) + 1)  # fmt: skip
    one = CODE.index("1")
    assert depth[one] == 2 and depth[CODE.index("]")] == 0  # [ then {: two deep


def test_quotes_escapes_and_triple_quotes():
    text = 'a = "x\\"y" b\n"""doc\n"q" end""" c'
    s, _, _ = patterns.code_state(text)
    assert marked(text, s) == "...." + '"x\\"y"' + "..\n" + '"""doc\n"q" end"""' + ".."
    # a # inside a string is no comment
    _, c, _ = patterns.code_state('x = "#no" # yes')
    assert marked('x = "#no" # yes', c) == "..........# yes"


def test_indent_line_and_word_position():
    text = "a b\n    cd\n\tx"
    assert list(patterns.indent(text)) == [0, 0, 0, 0] + [4] * 7 + [4, 4]
    assert list(patterns.line_position(text)) == [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 0, 1]
    wp = patterns.word_position(text)
    assert list(wp[[0, 2, 8, 9, 12]]) == [0, 0, 0, 1, 0] and np.isnan(wp[1])


def test_word_patterns_and_regex():
    words = "the keys to the cabinet are missing".split()
    assert list(patterns.word_values("position", words)) == list(range(8))
    number = patterns.word_values("number", words)
    assert list(number[2:6]) == [1, 1, 1, 1] and np.isnan(number[0])
    rx = patterns.word_values("regex:ke|cab", words)
    assert np.isnan(rx[0]) and list(rx[1:]) == [0, 1, 0, 0, 1, 0, 0]
    chars = patterns.char_values("regex:[0-9]+", "ab12c3")
    assert list(chars) == [0, 0, 1, 1, 0, 1]
    # a character model's step 0 reads <s>: no text, no value
    v = patterns.values("string", 'x"y"', "char")
    assert np.isnan(v[0]) and list(v[1:]) == [0, 1, 1, 1]


@pytest.mark.parametrize(
    ("pattern", "level", "message"),
    [
        ("strings", "char", "unknown pattern 'strings'; for character models: string,"),
        ("regex:(", "word", "the regular expression '(' is not valid: missing )"),
        ("regex:", "char", "regex: needs an expression"),
        ("indent", "word", "'indent' is for char-level models; this is a word-level model"),
        ("number", "char", "'number' is for word-level models"),
    ],
)
def test_bad_patterns_are_one_sentence(pattern, level, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        patterns.check(pattern, level)


def test_units_follow_a_pattern_a_unit_is_built_to_follow(tmp_path):
    """A character LSTM whose unit 0 counts open brackets (by construction, with a large input
    weight on '(' and ')'): ranking by `brackets` puts c[0] first with r near 1."""
    from seqviz.core.params import Params
    from seqviz.models.lm import RNNLM

    chars = ["<s>", "</s>", "(", ")", "a", " "]
    d, V = 3, len(chars)
    emb = np.zeros((V, V))
    np.fill_diagonal(emb, 1.0)
    w_ih = np.zeros((4 * d, V))
    b = np.zeros(4 * d)
    b[:d] = 20.0  # input gate open
    b[d : 2 * d] = 20.0  # forget gate shut: c keeps what it adds up
    w_ih[2 * d, chars.index("(")] = 0.5  # g of unit 0: +tanh(0.5) on "(", -tanh(0.5) on ")"
    w_ih[2 * d, chars.index(")")] = -0.5
    w_ih[2 * d + 1, chars.index("a")] = 0.5  # unit 1 counts letters instead
    params = Params("lstm", w_ih, np.zeros((4 * d, d)), b, np.zeros(4 * d))
    rng = np.random.default_rng(0)
    lm = RNNLM(params, emb, rng.normal(size=(V, d)), np.zeros(V), tuple(chars), level="char")
    text = "a(a(a)a)\n((a))a\n(a(a(a)))\n"
    found = rank_by_pattern(lm, "brackets", text)
    best = found.units[0]
    assert (best.state, best.unit) == ("c", 0) and best.r > 0.99
    assert found.segments == 3 and found.skipped == 0  # no "\n" in its vocabulary: line by line
    # the CLI says the same, from a saved model
    path = lm.save(tmp_path / "brackets.npz")
    (tmp_path / "t.txt").write_text(text + "z(\n")
    assert main(["units", "--model", str(path), "--track", "brackets", "--text",
                 str(tmp_path / "t.txt"), "--json"]) == 0  # fmt: skip


def test_units_cli_json_and_errors(tmp_path, capsys):
    from seqviz.models.lm import random_lm

    lm = random_lm(("<s>", "</s>", "a", "b", " ", "\n"), "gru", hidden=4, emb=3, level="char")
    path = lm.save(tmp_path / "c.npz")
    text = tmp_path / "t.txt"
    text.write_text("ab a\nbb ab\n  ab\n")
    assert main(["units", "--model", str(path), "--track", "indent", "--text", str(text),
                 "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["track"] == "indent" and out["cell"] == "gru" and len(out["units"]) == 4
    assert main(["units", "--model", str(path), "--track", "number"]) == 2
    assert "for word-level models" in capsys.readouterr().err
    assert main(["units", "--model", str(path), "--track", "string"]) == 2
    assert "needs a text to read: give --text FILE" in capsys.readouterr().err
    assert main(["units", "--model", str(path), "--track", "regex:[", "--text", str(text)]) == 2
    err = capsys.readouterr().err
    assert "is not valid" in err and err.count("\n") == 1


def test_word_model_regex_over_the_grammar(capsys):
    assert main(["units", "--model", "agreement", "--track", r"regex:\b(is|are|was|were)\b",
                 "--sentences", "20", "--top", "3"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "20 sentences of the grammar" in out and out.count(" r = ") == 3


def test_inside_scene_ranks_units_by_any_word_pattern():
    from seqviz.scenes import get_scene

    scene = get_scene("inside")
    v = scene.make({"track": r"regex:\b(is|are|was|were)\b", "text": "the cat is here"})
    result = scene.compute(v)
    rs = [abs(u.r) for u in result.units]
    assert len(rs) == 5 and rs == sorted(rs, reverse=True) and rs[0] > 0
    assert result.unit_traces.shape == (5, 5)
    # the grammar's own tracks still come from the study; an unknown pattern is one sentence
    assert scene.compute(scene.make({"track": "number"})).units[0].r != 0
    with pytest.raises(ValueError, match="'indent' is for char-level models"):
        scene.compute(scene.make({"track": "indent"}))


def test_cell_view_colours_by_the_unit():
    from seqviz.inside.cells import MID, NEG, POS, colour, coloured
    from seqviz.models.lm import random_lm

    hexed = "#{:02x}{:02x}{:02x}".format
    assert colour(2.0, 2.0) == hexed(*POS) and colour(-5.0, 2.0) == hexed(*NEG)
    assert colour(0.0, 2.0) == hexed(*MID) and colour(float("nan"), 1.0) == "#808080"
    lm = random_lm(("<s>", "</s>", "a", "b", "(", ")"), "lstm", hidden=3, emb=2, level="char")
    from seqviz.inside.cells import unit_values

    v = unit_values(lm, "a(b)", "c", 1)
    text = coloured(lm, "a(b)", "c", 1, [(0, "a(b)")])
    scale = float(np.abs(v).max())
    styles = [str(span.style) for span in text.spans][:4]
    assert styles == [
        f"{'white' if abs(x) >= 0.6 * scale else 'black'} on {colour(float(x), scale)}" for x in v
    ]
    assert f"from {-scale:+.3f} (blue)" in text.plain


def test_units_show_cli(tmp_path, capsys):
    assert main(["units", "--model", "agreement", "--sentences", "10", "--top", "1",
                 "--show", "80"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    best = out.split("1. ")[1].split()[0]
    assert f"{best}: " in out and "(blue) through 0 (white)" in out
    assert main(["units", "--model", "agreement", "--sentences", "10", "--show", "80",
                 "--unit", "x[1]"]) == 2  # fmt: skip
    assert "--unit must look like c[12]" in capsys.readouterr().err
    assert main(["units", "--model", "agreement", "--sentences", "10", "--show", "80",
                 "--unit", "c[999]"]) == 2  # fmt: skip
    assert "unit 999 does not exist" in capsys.readouterr().err

"""Task generators: deterministic for a seed and runnable as modules."""

from __future__ import annotations

import subprocess
import sys

from seqviz.tasks import grammar


def test_grammar_module_writes_the_same_corpus_for_a_seed(tmp_path):
    outs = []
    for name, seed in (("a.txt", 5), ("b.txt", 5), ("c.txt", 6)):
        cmd = [sys.executable, "-m", "seqviz.tasks.grammar", "--sentences", "40", "--seed",
               str(seed), "--out", str(tmp_path / name)]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        assert "wrote 40 sentences" in done.stdout
        outs.append((tmp_path / name).read_text())
    assert outs[0] == outs[1] != outs[2]
    assert outs[0] == "\n".join(grammar.corpus(40, seed=5)) + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt", "c.txt"]

"""A demo step whose model fails fails the check; a huge learning rate says training diverged."""

from __future__ import annotations

from seqviz.cli import main


def test_demo_check_fails_when_a_steps_model_does_not_load(tmp_path, capsys):
    demo = tmp_path / "bad.toml"
    demo.write_text(
        'title = "a model that does not load"\n\n[[step]]\nscene = "decoding"\n'
        f'set = {{ model = "file", path = "{tmp_path / "missing.npz"}" }}\n'
        'caption = "The model file is gone."\n'
    )
    assert main(["demo", str(demo), "--check", "--size", "100x30"]) == 1
    out = capsys.readouterr().out
    assert "step 1" in out and "did not run" in out and "missing.npz" in out


def test_a_huge_learning_rate_says_training_diverged(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat\nthe dog ran\na cat ran\n")
    argv = ["train", str(corpus), "--lr", "1e300", "--epochs", "3",
            "--out", str(tmp_path / "m.npz")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "seqviz: error: training diverged" in err
    assert "grad_out" not in err and "Traceback" not in err

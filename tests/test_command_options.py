"""The plumbing the commands share: options that state their default, --out, Ctrl-C in train-*."""

from __future__ import annotations

import argparse

import pytest

from seqviz.cli import main
from seqviz.commands import UsageError
from seqviz.commands.options import add, add_fit_options, interrupted_note, out_path


def test_help_states_the_default_the_option_has():
    p = argparse.ArgumentParser()
    add(p, "--noise", float, 0.05, "std of the noise")
    add(p, "--steps", int, 500, "steps T")
    add_fit_options(p, epochs=4, batch=16, per_update="sentences", clip=5.0)
    text = p.format_help()
    for said in ("std of the noise (default 0.05)", "steps T (default 500)",
                 "passes over the data (default 4)", "sentences per update (default 16)",
                 "no clipping (default 5)", "Adam learning rate (default 0.01)"):  # fmt: skip
        assert said in " ".join(text.split())
    args = p.parse_args(["--out", "m.npz"])
    assert (args.noise, args.steps, args.epochs, args.batch, args.clip, args.seed) == (
        0.05, 500, 4, 16, 5.0, 0)  # fmt: skip


def test_out_path_checks_sizes_and_the_folder(tmp_path):
    ok = argparse.Namespace(out=str(tmp_path / "m.npz"), hidden=3)
    assert out_path(ok, ("hidden",)) == tmp_path / "m.npz"
    with pytest.raises(UsageError, match="--hidden must be at least 1, got 0"):
        out_path(argparse.Namespace(out=str(tmp_path / "m.npz"), hidden=0), ("hidden",))
    with pytest.raises(ValueError, match="the folder of --out, '.*nope', does not exist"):
        out_path(argparse.Namespace(out=str(tmp_path / "nope" / "m.npz")))


def test_interrupted_note_says_what_the_checkpoint_holds(tmp_path):
    assert interrupted_note(3, tmp_path / "m.npz") == (
        f"interrupted; {tmp_path / 'm.npz'} holds the checkpoint of epoch 3."
    )
    assert interrupted_note(0, tmp_path / "m.npz").endswith("no model was written.")


@pytest.mark.parametrize("at_step, said", [(3, "checkpoint of epoch 1"), (1, "no model")])
def test_ctrl_c_in_train_flipflop_keeps_the_last_epoch(tmp_path, capsys, monkeypatch, at_step,
                                                       said):  # fmt: skip
    from seqviz.models.flipflop import FlipFlopRNN

    out = tmp_path / "ff.npz"
    real, calls = FlipFlopRNN.loss_and_grads, {"n": 0}

    def interrupted(self, batch):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == at_step:  # two steps an epoch: step 3 is in the second epoch
            raise KeyboardInterrupt
        return real(self, batch)

    monkeypatch.setattr(FlipFlopRNN, "loss_and_grads", interrupted)
    argv = ["train-flipflop", "--hidden", "4", "--steps", "5", "--batch", "2", "--batches", "2",
            "--epochs", "3", "--out", str(out)]  # fmt: skip
    assert main(argv) == 130
    text = capsys.readouterr().out
    assert said in text and "held-out" not in text
    assert out.exists() == (at_step == 3)

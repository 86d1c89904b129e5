"""The shipped models, one `register` line each (trained by the command they name)."""

from __future__ import annotations

from seqviz.models.registry import ModelEntry, register

register(ModelEntry(
    "agreement", "lm", "shipped LSTM (agreement grammar)", "agreement_lstm.npz",
    "seqviz train seqviz/data/agreement.txt --cell lstm --hidden 48 --emb 16 --level word "
    "--seq-len 32 --optimizer adam --lr 0.01 --batch 16 --clip 5 --epochs 20 --seed 0 "
    "--out seqviz/data/agreement_lstm.npz",
    choice="lstm", cell="lstm",
))  # fmt: skip

register(ModelEntry(
    "agreement-gru", "lm", "shipped GRU (agreement grammar)", "agreement_gru.npz",
    "seqviz train seqviz/data/agreement.txt --cell gru --hidden 48 --emb 16 --level word "
    "--seq-len 32 --optimizer adam --lr 0.01 --batch 16 --clip 5 --epochs 20 --seed 0 "
    "--out seqviz/data/agreement_gru.npz",
    choice="gru", cell="gru",
))  # fmt: skip

register(ModelEntry(
    "agreement-rnn", "lm", "shipped tanh RNN (agreement grammar)", "agreement_rnn.npz",
    "seqviz train seqviz/data/agreement.txt --cell rnn --hidden 48 --emb 16 --level word "
    "--seq-len 32 --optimizer adam --lr 0.01 --batch 16 --clip 5 --epochs 20 --seed 0 "
    "--out seqviz/data/agreement_rnn.npz",
    choice="rnn", cell="rnn",
))  # fmt: skip

register(ModelEntry(
    "tagger-bi", "tagger", "bidirectional 2-layer LSTM tagger", "tagger_bi.npz",
    "seqviz train-tagger --cell lstm --layers 2 --bidirectional --hidden 24 --emb 16 "
    "--sentences 2000 --epochs 4 --seed 0 --out seqviz/data/tagger_bi.npz",
    cell="lstm",
))  # fmt: skip
register(ModelEntry(
    "tagger-uni", "tagger", "left-to-right 2-layer LSTM tagger", "tagger_uni.npz",
    "seqviz train-tagger --cell lstm --layers 2 --hidden 24 --emb 16 "
    "--sentences 2000 --epochs 4 --seed 0 --out seqviz/data/tagger_uni.npz",
    cell="lstm",
))  # fmt: skip

register(ModelEntry(
    "flipflop", "flipflop", "tanh RNN, 24 units (3-bit flip-flop)", "flipflop.npz",
    "seqviz train-flipflop --hidden 24 --steps 100 --batch 32 --batches 40 --epochs 20 "
    "--lr 0.01 --clip 1 --seed 0 --out seqviz/data/flipflop.npz",
    cell="rnn",
))  # fmt: skip

register(ModelEntry(
    "attention", "seq2seq", "seq2seq GRU with Luong attention (translation task)",
    "seq2seq_attention.npz",
    "seqviz train-seq2seq --attention --cell gru --hidden 48 --emb 24 --epochs 15 --pairs 4000 "
    "--batch 16 --lr 0.01 --clip 1 --teacher-forcing 1 --seed 0 "
    "--out seqviz/data/seq2seq_attention.npz",
    cell="gru",
))  # fmt: skip
register(ModelEntry(
    "bottleneck", "seq2seq", "seq2seq GRU without attention: one context vector",
    "seq2seq_bottleneck.npz",
    "seqviz train-seq2seq --no-attention --reverse-source --cell gru --hidden 48 --emb 24 "
    "--epochs 60 --pairs 4000 --batch 16 --lr 0.01 --clip 1 --teacher-forcing 1 --seed 0 "
    "--out seqviz/data/seq2seq_bottleneck.npz",
    cell="gru",
))  # fmt: skip

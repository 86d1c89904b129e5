"""Benchmarks behind `seqviz bench`, kept out of the runtime package.

Only `seqviz.commands.bench` imports this package (tests/test_layers.py checks it); the app,
the scenes and the other commands never do. Importing it is light: each module is imported by
the option that runs it.

- ``traces``: full traces against the NumPy reference and PyTorch (`seqviz bench`, run in a
  fresh process with one BLAS thread as ``python -m seqviz.bench.traces``);
- ``decoding``: one beam step on the shipped LSTM (`seqviz bench --decoding`);
- ``ui``: the app's frame rates, latency and memory (`seqviz bench --ui`);
- ``launch``: cold and warm launches in a pseudo-terminal (part of `--ui`;
  ``python -m seqviz.bench.launch`` alone).

`seqviz bench --training` lives beside the trainer, in ``seqviz.training.bench``.
"""

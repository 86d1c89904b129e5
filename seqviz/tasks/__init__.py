"""Data generators for training and demos, deterministic for a seed; each runs as a module
(`python -m seqviz.tasks.grammar --sentences 5000 --seed 0 --out FILE`)."""

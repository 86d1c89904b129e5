"""Data generators for training, each deterministic for a seed and runnable as a module."""

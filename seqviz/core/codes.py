"""Integer codes of cells, nonlinearities and GRU variants, importable without Numba."""

from __future__ import annotations

# Integer codes keep the jitted code free of strings (one compiled specialisation for all cells).
# The kernels read them as frozen globals: changing a value here needs a fresh Numba cache.
RNN, LSTM, GRU = 0, 1, 2
TANH, RELU, LINEAR = 0, 1, 2
TEXTBOOK, PYTORCH = 0, 1

CELL_CODES = {"rnn": RNN, "lstm": LSTM, "gru": GRU}
NONLINEARITY_CODES = {"tanh": TANH, "relu": RELU, "linear": LINEAR}
VARIANT_CODES = {"textbook": TEXTBOOK, "pytorch": PYTORCH}
N_GATES = {"rnn": 1, "lstm": 4, "gru": 3}

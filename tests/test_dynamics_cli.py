"""`seqviz run lyapunov` and `seqviz run fixedpoints`: tables, JSON and one-sentence errors."""

from __future__ import annotations

import json

from seqviz.cli import main


def test_run_lyapunov_json_and_table(capsys):
    assert main(["run", "lyapunov", "--rho", "0.5", "2", "--hidden", "32", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    low, high = doc["rows"]
    assert low["exponents"][0] < 0 < high["exponents"][0]
    assert low["grad_norm"] < high["grad_norm"]
    assert len(low["exponents"]) == 3 and low["exponents"] == sorted(low["exponents"])[::-1]
    assert main(["run", "lyapunov", "--rho", "0.5", "--hidden", "16", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "lambda_2" in out and "ordered" in out


def test_run_lyapunov_bad_input(capsys):
    assert main(["run", "lyapunov", "--rho", "-1"]) == 2
    assert "spectral radii must be" in capsys.readouterr().err
    assert main(["run", "lyapunov", "--hidden", "4", "--top", "9"]) == 2
    assert "--top must be from 1" in capsys.readouterr().err

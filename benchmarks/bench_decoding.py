"""Benchmark: one beam-search step (width 8) on the shipped LM, and the model step side by side."""

from __future__ import annotations

import argparse
import json

from seqviz.bench.decoding import bench_decoding, format_report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = bench_decoding(width=args.width, repeats=args.repeats)
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

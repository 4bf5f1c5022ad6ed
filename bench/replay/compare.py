#!/usr/bin/env python3
"""Two runs of `hone replay --json` compared seed by seed (a paired comparison).

  compare.py [--strategy S] A_DIR B_DIR

A_DIR and B_DIR each hold <space>.json files from `hone replay --json` with the same seeds (for
example the same strategy before and after a change). For each space found in both and each
budget, prints how many seeds A ended better than B, worse and equal, and the geometric mean of
B's ratio over A's. On the spaces whose optimum is a lone configuration a 50-seed median or p90
moves by a step when two or three seeds change; counting the seeds that changed says whether a
change helped.
"""
import argparse
import json
import math
import pathlib
import sys


def runs(path, strategy):
    out = {}
    for r in json.loads(path.read_text()):
        if r["strategy"] == strategy:
            if "ratios" not in r:
                sys.exit(f"compare.py: {path}: no per-seed ratios (a hone replay older than the 'ratios' key)")
            out[r["budget"]] = [math.inf if x is None else x for x in r["ratios"]]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("a_dir", type=pathlib.Path)
    ap.add_argument("b_dir", type=pathlib.Path)
    args = ap.parse_args()
    print("| space | budget | A better | B better | equal | geomean B/A |")
    print("|---|---|---|---|---|---|")
    for a_file in sorted(args.a_dir.glob("*.json")):
        b_file = args.b_dir / a_file.name
        if not b_file.exists():
            continue
        a, b = runs(a_file, args.strategy), runs(b_file, args.strategy)
        for budget in sorted(set(a) & set(b)):
            if len(a[budget]) != len(b[budget]):
                sys.exit(f"compare.py: {a_file.stem} at {budget}: {len(a[budget])} seeds in A, {len(b[budget])} in B")
            pairs = list(zip(a[budget], b[budget]))
            finite = [(x, y) for x, y in pairs if math.isfinite(x) and math.isfinite(y)]
            gm = math.exp(sum(math.log(y / x) for x, y in finite) / len(finite)) if finite else math.nan
            print(f"| {a_file.stem} | {budget} | {sum(x < y for x, y in pairs)} | {sum(y < x for x, y in pairs)} | "
                  f"{sum(x == y for x, y in pairs)} | {gm:.4f} |")


if __name__ == "__main__":
    main()

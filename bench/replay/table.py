#!/usr/bin/env python3
"""One table from `hone replay --json` outputs (one file per space, named <space>.json) and
kt_replay.py's output: per space and strategy, the median (and p90) of best-found time over the
optimum at each budget. Markdown, so that it can go straight into a report."""
import json
import os
import sys


def fmt(x):
    return "-" if x is None else f"{x:.4f}"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: table.py KT_JSON HONE_JSON...")
    seeds = int(os.environ.get("SEEDS", "50"))  # a Kernel Tuner row with fewer seeds says so
    rows = {}  # (space, strategy) -> {budget: (median, p90)}
    budgets = set()
    kt = json.load(open(sys.argv[1]))
    for r in kt:
        name = r["strategy"] + (f" [{r['seeds']} seeds]" if r.get("seeds") and r["seeds"] != seeds else "")
        rows.setdefault((r["space"], name), {})[r["budget"]] = (r["median_ratio"], r["p90_ratio"])
        budgets.add(r["budget"])
    for path in sys.argv[2:]:
        space = os.path.basename(path).split(".")[0]
        for r in json.load(open(path)):
            rows.setdefault((space, "hone:" + r["strategy"]), {})[r["budget"]] = (r["median_ratio"], r["p90_ratio"])
            budgets.add(r["budget"])
    budgets = sorted(budgets)
    print("Best valid time found / best valid time in the cache: median (p90) over the seeds.\n")
    for space in sorted({s for s, _ in rows}):
        print(f"### {space}\n")
        print("| strategy | " + " | ".join(f"{b}" for b in budgets) + " |")
        print("|---|" + "---|" * len(budgets))
        entries = [(st, v) for (sp, st), v in rows.items() if sp == space]
        # hone's first, then Kernel Tuner's, each by median at the largest budget.
        entries.sort(key=lambda e: (not e[0].startswith("hone:"), e[1].get(budgets[-1], (None,))[0] or float("inf")))
        for strategy, v in entries:
            cells = [f"{fmt(v[b][0])} ({fmt(v[b][1])})" if b in v else "" for b in budgets]
            print(f"| {strategy} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()

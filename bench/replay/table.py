#!/usr/bin/env python3
"""Tables from `hone replay --json` outputs (one file per space, named <space>.json) and
kt_replay.py's output: per space and strategy, the median (and p90) of best-found time over the
optimum at each budget; then one summary row per strategy (the worst space's median and the
worst space's p90 at each budget), over the spaces the settings were not chosen on and over all;
then the issue's targets checked space by space. Markdown, so that it can go straight into a
report.

  table.py [--chosen-on A,B,...] KT_JSON HONE_JSON...
"""
import argparse
import json
import os

TARGET_STRATEGY = "hone:auto"
MEDIAN_TARGET = (100, 1.02)  # median within 2% of the optimum at 100 evaluations
P90_TARGET = (200, 1.05)     # 90th percentile within 5% at 200


def fmt(x):
    return "-" if x is None else f"{x:.4f}"


def worst(values):
    values = list(values)
    if not values:
        return None
    return float("inf") if any(v is None for v in values) else max(values)  # None: nothing valid found


def read_rows(kt_path, hone_paths, seeds):
    rows = {}  # (space, strategy) -> {budget: (median, p90)}
    for r in json.load(open(kt_path)):
        name = r["strategy"] + (f" [{r['seeds']} seeds]" if r.get("seeds") and r["seeds"] != seeds else "")
        rows.setdefault((r["space"], name), {})[r["budget"]] = (r["median_ratio"], r["p90_ratio"])
    for path in hone_paths:
        space = os.path.basename(path).split(".")[0]
        for r in json.load(open(path)):
            rows.setdefault((space, "hone:" + r["strategy"]), {})[r["budget"]] = (r["median_ratio"], r["p90_ratio"])
    return rows


def cell(v, b):
    return f"{fmt(v[b][0])} ({fmt(v[b][1])})" if b in v else ""


def header(first, budgets):
    print(f"| {first} | " + " | ".join(str(b) for b in budgets) + " |")
    print("|---|" + "---|" * len(budgets))


def by_largest_budget(budgets):
    # hone's first, then Kernel Tuner's, each by median at the largest budget.
    return lambda e: (not e[0].startswith("hone:"), e[1].get(budgets[-1], (None,))[0] or float("inf"))


def space_tables(rows, spaces, budgets):
    for space in spaces:
        print(f"### {space}\n")
        header("strategy", budgets)
        entries = sorted(((st, v) for (sp, st), v in rows.items() if sp == space), key=by_largest_budget(budgets))
        for strategy, v in entries:
            print(f"| {strategy} | " + " | ".join(cell(v, b) for b in budgets) + " |")
        print()


def summary(rows, spaces, budgets, title):
    print(f"### Summary: {title} ({len(spaces)}: {', '.join(spaces)})\n")
    print("Worst space's median (worst space's p90).\n")
    header("strategy", budgets)
    strategies = sorted({st for (sp, st) in rows if sp in spaces})
    entries = []
    for st in strategies:
        per = [rows.get((sp, st), {}) for sp in spaces]
        if any(not p for p in per):
            continue  # a strategy not run on every space of the group has no summary row
        v = {b: (worst(p[b][0] for p in per), worst(p[b][1] for p in per)) for b in budgets if all(b in p for p in per)}
        entries.append((st, v))
    for strategy, v in sorted(entries, key=by_largest_budget(budgets)):
        print(f"| {strategy} | " + " | ".join(cell(v, b) for b in budgets) + " |")
    print()


def targets(rows, spaces, budgets):
    print(f"### Targets for {TARGET_STRATEGY}\n")
    misses = []
    for sp in spaces:
        mine = rows.get((sp, TARGET_STRATEGY))
        if not mine:
            misses.append(f"{sp}: {TARGET_STRATEGY} was not run")
            continue
        (bm, tm), (bp, tp) = MEDIAN_TARGET, P90_TARGET
        if bm in mine and (mine[bm][0] is None or mine[bm][0] > tm):
            misses.append(f"{sp}: median {fmt(mine[bm][0])} at {bm} (target {tm})")
        if bp in mine and (mine[bp][1] is None or mine[bp][1] > tp):
            misses.append(f"{sp}: p90 {fmt(mine[bp][1])} at {bp} (target {tp})")
        kt = [v for (s, st), v in rows.items() if s == sp and st.startswith("kt:")]
        for b in budgets:
            if b not in mine:
                continue
            for i, what in ((0, "median"), (1, "p90")):
                best = min((v[b][i] for v in kt if b in v and v[b][i] is not None), default=None)
                if best is not None and (mine[b][i] is None or mine[b][i] > best):
                    misses.append(f"{sp}: {what} {fmt(mine[b][i])} at {b} behind Kernel Tuner's best {fmt(best)}")
    print(f"Median <= {MEDIAN_TARGET[1]} at {MEDIAN_TARGET[0]}, p90 <= {P90_TARGET[1]} at {P90_TARGET[0]}, and median and p90 "
          f"no worse than Kernel Tuner's best strategy at every budget, on each of {len(spaces)} spaces: "
          + ("all met." if not misses else f"{len(misses)} missed:"))
    for m in misses:
        print(f"- {m}")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chosen-on", default="", help="comma-separated spaces the strategies' settings were chosen on")
    ap.add_argument("kt_json")
    ap.add_argument("hone_json", nargs="+")
    a = ap.parse_args()
    seeds = int(os.environ.get("SEEDS", "50"))  # a Kernel Tuner row with fewer seeds says so
    rows = read_rows(a.kt_json, a.hone_json, seeds)
    budgets = sorted({b for v in rows.values() for b in v})
    spaces = sorted({s for s, _ in rows})
    chosen = [s for s in a.chosen_on.split(",") if s]
    held_out = [s for s in spaces if s not in chosen]

    print("Best valid time found / best valid time in the cache: median (p90) over the seeds.\n")
    space_tables(rows, spaces, budgets)
    if chosen and held_out:
        summary(rows, [s for s in spaces if s in chosen], budgets, "the spaces the settings were chosen on")
        summary(rows, held_out, budgets, "the spaces the settings were not chosen on")
    summary(rows, spaces, budgets, "all spaces")
    targets(rows, spaces, budgets)


if __name__ == "__main__":
    main()

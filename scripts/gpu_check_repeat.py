#!/usr/bin/env python3
"""Whether the same winner comes out twice: two kernel caches tuned by the same job, one after the
other on the same GPU, compared task by task (op, static dims, buckets). For each task, the winner
of each run with its time; where they differ, how far apart their times are, since two kernels
within the timing noise of each other may trade places. Prints a table and a summary line; with
--json FILE writes the rows there. Exit 0: the comparison was made (differences are figures, not
failures); 2: a cache is unreadable.
Usage: gpu_check_repeat.py CACHE_1 CACHE_2 [--json FILE]"""
import argparse
import json
import os
import sys


def winners(cache_dir):
    manifest = json.load(open(os.path.join(cache_dir, "manifest.json")))
    out = {}
    for e in manifest["entries"]:
        key = (e["op"], json.dumps(e["static_dims"], sort_keys=True), json.dumps(e["buckets"], sort_keys=True))
        label = e.get("variant") or e.get("origin", "?")
        if e.get("params"):
            label += " " + ",".join(f"{k}={v}" for k, v in sorted(e["params"].items()))
        out[key] = {"winner": label, "time_ms": e["time_ms"]}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("first_cache")
    parser.add_argument("second_cache")
    parser.add_argument("--json", dest="out_json")
    args = parser.parse_args()
    out_json = args.out_json
    try:
        first, second = winners(args.first_cache), winners(args.second_cache)
    except (OSError, ValueError, KeyError) as e:
        print(f"gpu_check_repeat: {e}", file=sys.stderr)
        sys.exit(2)
    rows = []
    for key in sorted(set(first) | set(second)):
        a, b = first.get(key), second.get(key)
        row = {"op": key[0], "static_dims": json.loads(key[1]), "buckets": json.loads(key[2]),
               "first": a, "second": b, "same": bool(a and b and a["winner"] == b["winner"])}
        if a and b and a["time_ms"] > 0:
            row["time_ratio"] = b["time_ms"] / a["time_ms"]
        rows.append(row)
    same = sum(r["same"] for r in rows)
    header = ["task", "first run", "ms", "second run", "ms", "same"]
    table = [header]
    for r in rows:
        dims = {**r["static_dims"], **{k: f"{lo}..{hi}" for k, (lo, hi) in r["buckets"].items()}}
        task = r["op"] + " " + ",".join(f"{k}={v}" for k, v in sorted(dims.items()))
        a, b = r["first"] or {"winner": "-", "time_ms": 0}, r["second"] or {"winner": "-", "time_ms": 0}
        table.append([task, a["winner"], f"{a['time_ms']:.4f}", b["winner"], f"{b['time_ms']:.4f}", "yes" if r["same"] else "no"])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    print(f"the same winner in both runs: {same} of {len(rows)} tasks")
    if out_json:
        with open(out_json, "w") as f:
            json.dump({"same": same, "tasks": len(rows), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()

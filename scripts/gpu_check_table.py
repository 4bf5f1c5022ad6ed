#!/usr/bin/env python3
"""The figures of scripts/gpu-check from a kernel cache tuned on the cuda device: per winner, its
time and the reference's (re-timed in turns), the speedup, the bytes the op must move at the tuned
shape (the family's spec formula), the bandwidth that time achieves and its share of the GPU's
measured copy bandwidth. Prints a table; with --json FILE writes the same rows there. With
--db DATABASE (the job's), also each task's baselines: cuBLAS's and the reference's times, in
turns with the winner where they were timed so, else as each was timed at the start of its task.
Usage: gpu_check_table.py CACHE_DIR DEVICES_JSON TEMPLATES_DIR [--json FILE] [--db DATABASE]"""
import argparse
import json
import os
import re
import sqlite3
import sys


def eval_formula(text, symbols):
    # Spec formulas are integer arithmetic over shape symbols and ceil_div: nothing else may reach eval.
    if not re.fullmatch(r"[A-Za-z0-9_+\-*/(), ]+", text):
        raise ValueError(f"formula {text!r} has characters other than symbols, ceil_div and + - * / ( )")
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)) - {"ceil_div"}
    missing = names - set(symbols)
    if missing:
        raise ValueError(f"formula {text!r} uses {sorted(missing)} that the entry does not give")
    scope = dict(symbols)
    scope["ceil_div"] = lambda a, b: -(-a // b)
    return eval(text.replace("/", "//"), {"__builtins__": {}}, scope)


def baseline_times(db, entry):
    """{origin: ms} for the task of a cache entry: "vendor:cublas" and "reference"."""
    out = {}
    for task_id, static_dims, buckets in db.execute("SELECT id, static_dims, buckets FROM tasks WHERE op = ? AND arch = ?",
                                                    (entry["op"], entry["arch"])):
        if json.loads(static_dims) != entry["static_dims"] or json.loads(buckets) != entry["buckets"]:
            continue
        rows = db.execute("SELECT c.origin, r.time_ms, r.detail FROM results r JOIN candidates c ON c.id = r.candidate_id "
                          "WHERE r.task_id = ? AND r.device = ? AND r.verdict = 'pass' ORDER BY r.id",
                          (task_id, entry["device"]["id"]))
        in_turns = {}
        for origin, time_ms, detail in rows:
            detail = json.loads(detail)
            if origin in ("reference", "vendor:cublas") and not detail.get("against"):
                out.setdefault(origin, time_ms)  # timed at the start of the task
            if detail.get("against") and "baseline" in detail:
                in_turns[detail["against"]] = detail["baseline"]["median_ms"]
        out.update(in_turns)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cache_dir")
    parser.add_argument("devices_file")
    parser.add_argument("templates")
    parser.add_argument("--json", dest="out_json")
    parser.add_argument("--db")
    args = parser.parse_args()
    cache_dir, devices_file, templates, out_json = args.cache_dir, args.devices_file, args.templates, args.out_json
    manifest = json.load(open(os.path.join(cache_dir, "manifest.json")))
    db = sqlite3.connect(args.db) if args.db else None
    devices = json.load(open(devices_file))
    gpu = devices["cuda"]["devices"][0]
    copy_gbs = gpu["copy_bandwidth_gbs"]
    rows = []
    for e in manifest["entries"]:
        spec = json.load(open(os.path.join(templates, e["op"], "spec.json")))
        shape = dict(e["static_dims"])
        for sym, (lo, hi) in e["buckets"].items():
            shape[sym] = hi  # a task is tuned at its bucket's upper bound
        nbytes = eval_formula(spec["bytes"], shape)
        t, base = e["time_ms"], e["baseline_ms"]
        achieved = nbytes / (t * 1e-3) / 1e9 if t > 0 else 0
        baselines = baseline_times(db, e) if db else {}
        rows.append({
            "cublas_ms": baselines.get("vendor:cublas", 0),
            "reference_ms": baselines.get("reference", 0),
            "op": e["op"],
            "shape": ",".join(f"{k}={v}" for k, v in sorted(shape.items())),
            "winner": e["entry"],
            "timer": e["timer"],
            "time_ms": t,
            "baseline_ms": base,
            "speedup": base / t if t > 0 and base > 0 else 0,
            "timed_in_turns": e.get("timed_in_turns", False),
            "origin": e.get("origin", ""),
            "bytes": nbytes,
            "achieved_gbs": achieved,
            "of_copy_bandwidth": achieved / copy_gbs if copy_gbs > 0 else 0,
        })
    rows.sort(key=lambda r: (r["op"], r["shape"]))
    header = ["op", "shape", "winner", "time ms", "baseline ms", "speedup", "MB", "GB/s", "of copy bw"]
    if args.db:
        header[5:5] = ["cuBLAS ms", "reference ms", "vs cuBLAS"]

    def cells(r):
        c = [r["op"], r["shape"], r["winner"] + (" (the baseline)" if r["origin"] in ("reference", "vendor:cublas") else ""),
             f"{r['time_ms']:.4f}", f"{r['baseline_ms']:.4f}",
             f"{r['speedup']:.2f}x" + ("" if r["timed_in_turns"] else "*"), f"{r['bytes'] / 1e6:.2f}",
             f"{r['achieved_gbs']:.0f}", f"{100 * r['of_copy_bandwidth']:.0f}%"]
        if args.db:
            cublas = r["cublas_ms"]
            c[5:5] = [f"{cublas:.4f}" if cublas else "-", f"{r['reference_ms']:.4f}" if r["reference_ms"] else "-",
                      f"{cublas / r['time_ms']:.2f}x" if cublas and r["time_ms"] > 0 else "-"]
        return c

    table = [header] + [cells(r) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    print(f"{gpu['name']} ({gpu['arch']}), copy bandwidth {copy_gbs:.0f} GB/s measured "
          f"(attributes: {gpu['memory_bandwidth_gbs']:.0f} GB/s), driver {devices['cuda']['driver']}")
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    if any(not r["timed_in_turns"] for r in rows):
        print("* the search's own times, not re-timed in turns")
    if out_json:
        with open(out_json, "w") as f:
            json.dump({"device": gpu, "driver": devices["cuda"]["driver"], "rows": rows}, f, indent=2)
    bad = [r for r in rows if r["timer"] != "gpu" or r["time_ms"] <= 0]
    if bad:
        sys.exit(f"{len(bad)} entries without a GPU time")
    # The baselines compete: no entry may be slower than the baseline it was timed in turns with.
    slower = [r for r in rows if r["timed_in_turns"] and r["time_ms"] > r["baseline_ms"]]
    if slower:
        sys.exit(f"{len(slower)} entries slower than their baseline: " + ", ".join(f"{r['op']} {r['shape']}" for r in slower))


if __name__ == "__main__":
    main()

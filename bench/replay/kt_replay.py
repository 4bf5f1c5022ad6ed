#!/usr/bin/env python3
"""Kernel Tuner's own strategies in its simulation mode, on the same cache files, budgets and
seeds as `hone replay`, scored the same way: best valid time found / best valid time in the cache.

Output: a JSON list of {"space", "strategy", "budget", "median_ratio", "p90_ratio", "seeds"},
strategies named "kt:<name>".

How the budgets are made comparable (the cache's entries are the space, as in hone):
- The search space Kernel Tuner builds is restricted to the cache's own entries (a restriction
  that accepts exactly the cache's keys), so both tools search the same set of configurations.
- hone counts every configuration it evaluates, failed ones included. Kernel Tuner 1.5's
  simulation runner counts a configuration the first time it is served from the cache, failed
  ones included, and never again; configurations outside the space are not counted (none are
  served here). Older Kernel Tuner versions counted only unique valid results. So that the
  count never depends on the version, a run's score at budget B is computed here from the
  results it returns: the best valid time among its first B distinct configurations.
- In Kernel Tuner 1.5 `max_fevals` is only a stop criterion in most strategies (they test it in
  their loops), so one run with max_fevals=400 holds the runs with 50, 100 and 200 as its
  prefixes. The exceptions get one run per budget (PER_BUDGET): simulated_annealing scales its
  cooling schedule to max_fevals, dual_annealing hands it to SciPy's local searches, and
  diff_evo's and bayes_opt's runs were not reproducible or not prefixes. `--check-prefix` checks the claim for the
  others by running each again at the smallest budget (seed 1) and comparing.
- Seeds: seed s seeds Python's `random` and NumPy's global generator before each run.
"""
import argparse
import gzip
import json
import math
import multiprocessing
import os
import random
import sys
import tempfile
import warnings

import numpy as np

# Strategies whose search depends on max_fevals (or that a prefix check found not reproducible).
PER_BUDGET = {"simulated_annealing", "dual_annealing", "diff_evo", "bayes_opt"}

DEFAULT_STRATEGIES = [
    "random_sample", "genetic_algorithm", "simulated_annealing", "pso", "firefly_algorithm",
    "diff_evo", "mls", "greedy_mls", "greedy_ils", "ordered_greedy_mls", "basinhopping",
    "minimize", "dual_annealing", "bayes_opt",
]


def read_cache_text(path):
    """The cache's JSON, closed if Kernel Tuner left it open (as Kernel Tuner itself does)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read().strip()
    if text[-3:] not in ("}\n}", "}}}") and not text.endswith("}}"):
        text = text.rstrip(",") + "}\n}"
    return text


def finite_time(entry):
    t = entry.get("time")
    return t if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t < 1e20 else None


def nearest_rank(sorted_values, q):
    """The q-quantile by nearest rank, as hone computes it."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def median(sorted_values):
    n = len(sorted_values)
    return sorted_values[n // 2] if n % 2 else (sorted_values[n // 2 - 1] + sorted_values[n // 2]) / 2


class Space:
    def __init__(self, path, workdir):
        self.path = path
        self.name = os.path.basename(path).split(".")[0]
        text = read_cache_text(path)
        data = json.loads(text)
        # Kernel Tuner reads its cache from a plain .json file.
        self.json_file = os.path.join(workdir, self.name + ".json")
        with open(self.json_file, "w") as f:
            f.write(text)
        self.names = data["tune_params_keys"]
        self.tune_params = data["tune_params"]
        self.kernel_name = data["kernel_name"]
        self.problem_size = data["problem_size"]
        self.times = {k: finite_time(v) for k, v in data["cache"].items()}
        self.optimum = min(t for t in self.times.values() if t is not None)

    def key(self, config):
        return ",".join(str(config[n]) for n in self.names)


def run_one(space, strategy, seed, max_fevals):
    """The first distinct configurations the strategy evaluated, in order, with their times."""
    import kernel_tuner

    keys = set(space.times)
    names = space.names

    def in_cache(p):
        return ",".join(str(p[n]) for n in names) in keys

    random.seed(seed)
    np.random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = kernel_tuner.tune_kernel(
            space.kernel_name, "__global__ void k() {}", space.problem_size, [], space.tune_params,
            restrictions=in_cache, strategy=strategy, strategy_options={"max_fevals": max_fevals},
            cache=space.json_file, simulation_mode=True, verbose=False, quiet=True)
    seen, order = set(), []
    for r in results:
        k = space.key(r)
        if k in space.times and k not in seen:
            seen.add(k)
            order.append(k)
    return order


def best_ratio(space, order, budget):
    times = [space.times[k] for k in order[:budget] if space.times[k] is not None]
    return min(times) / space.optimum if times else math.inf


_SPACES = {}


def _init(paths, workdir):
    for p in paths:
        s = Space(p, workdir)
        _SPACES[s.name] = s


def _task(args):
    name, strategy, seed, max_fevals = args
    space = _SPACES[name]
    try:
        order = run_one(space, strategy, seed, max_fevals)
        return name, strategy, seed, max_fevals, order, None
    except Exception as e:  # a strategy that cannot run on this space is reported, not fatal
        return name, strategy, seed, max_fevals, None, f"{type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", action="append", required=True, help="Kernel Tuner cache file (JSON or gzip); repeatable")
    ap.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES))
    ap.add_argument("--budgets", default="50,100,200,400")
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--runs", help="JSON-lines file of finished runs: read to resume, appended to")
    ap.add_argument("--report-only", action="store_true", help="run nothing: score the runs already in --runs")
    ap.add_argument("--check-prefix", action="store_true",
                    help="also run every strategy at the smallest budget (seed 1) and check it is a prefix of the largest")
    a = ap.parse_args()
    budgets = sorted(int(b) for b in a.budgets.split(","))
    strategies = [s for s in a.strategies.split(",") if s]
    workdir = tempfile.mkdtemp(prefix="kt-replay-")
    _init(a.cache, workdir)

    done = {}
    if a.runs and os.path.exists(a.runs):
        with open(a.runs) as f:
            for line in f:
                r = json.loads(line)
                done[(r["space"], r["strategy"], r["seed"], r["max_fevals"])] = r
    tasks = [(n, s, seed, b) for n in _SPACES for s in strategies for seed in range(1, a.seeds + 1)
             for b in (budgets if s in PER_BUDGET else budgets[-1:]) if (n, s, seed, b) not in done]
    if a.report_only:
        tasks = []
    log = open(a.runs, "a") if a.runs else None
    with multiprocessing.Pool(a.jobs, initializer=_init, initargs=(a.cache, workdir)) as pool:
        for i, (name, strategy, seed, max_fevals, order, error) in enumerate(pool.imap_unordered(_task, tasks), 1):
            r = {"space": name, "strategy": strategy, "seed": seed, "max_fevals": max_fevals, "order": order, "error": error}
            done[(name, strategy, seed, max_fevals)] = r
            if log:
                log.write(json.dumps(r) + "\n")
                log.flush()
            if error or i % 50 == 0:
                print(f"kt_replay: {i}/{len(tasks)} {name} {strategy} seed {seed}{': ' + error if error else ''}",
                      file=sys.stderr)

    if a.check_prefix:
        for name, space in _SPACES.items():
            for s in strategies:
                full = done.get((name, s, 1, budgets[-1]), {}).get("order")
                if s in PER_BUDGET:
                    continue
                if not full:
                    continue
                short = run_one(space, s, 1, budgets[0])
                same = short[:budgets[0]] == full[:budgets[0]]
                print(f"kt_replay: prefix check {name} {s}: {'same' if same else 'DIFFERENT'}", file=sys.stderr)

    out = []
    for name, space in _SPACES.items():
        for s in strategies:
            for b in budgets:
                run_budget = b if s in PER_BUDGET else budgets[-1]
                runs = [done.get((name, s, seed, run_budget)) for seed in range(1, a.seeds + 1)]
                orders = [r["order"] for r in runs if r and r["order"] is not None]
                if not orders:
                    continue
                ratios = sorted(best_ratio(space, o, b) for o in orders)
                finite = lambda x: None if math.isinf(x) else x  # no valid configuration found: null
                out.append({"space": name, "strategy": "kt:" + s, "budget": b, "median_ratio": finite(median(ratios)),
                            "p90_ratio": finite(nearest_rank(ratios, 0.9)), "seeds": len(ratios)})
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

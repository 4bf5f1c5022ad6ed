#!/usr/bin/env bash
# The replay benchmark: hone's strategies and Kernel Tuner's (in its simulation mode) on every
# recorded space in ../shared/data/tuning-spaces (each *.json.gz there), same budgets and seeds,
# one table per space and a summary at the end.
#
#   bench/replay/run.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR holds the hone binary (default build); OUT_DIR gets the JSON of every part and the
# table (default BUILD_DIR/bench-replay). Kernel Tuner is installed from PyPI into OUT_DIR/venv on
# the first run. Kernel Tuner's runs are kept in OUT_DIR/kt-runs.jsonl and a rerun resumes them.
# SEEDS, BUDGETS, SPACES, KT_STRATEGIES, CHOSEN_ON and JOBS override the defaults. CHOSEN_ON names
# the spaces the strategies' settings were chosen on: the summary reports the others apart.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/bench-replay}
seeds=${SEEDS:-50}
budgets=${BUDGETS:-25,50,100,200,400}
jobs=${JOBS:-$(nproc)}
chosen_on=${CHOSEN_ON:-gemm_RTX_3090,convolution_A100,dedispersion_A100,pnpoly_RTX_3060_laptop}
# Kernel Tuner's strategies but bayes_opt, which costs about a minute per search (hours on eleven
# spaces): KT_STRATEGIES=...,bayes_opt adds it.
kt_strategies=${KT_STRATEGIES:-random_sample,genetic_algorithm,simulated_annealing,pso,firefly_algorithm,diff_evo,mls,greedy_mls,greedy_ils,ordered_greedy_mls,basinhopping,minimize,dual_annealing}
spaces_dir="$root/../shared/data/tuning-spaces"
# SPACES (names without .json.gz, comma-separated) picks some of them.
if [ -n "${SPACES:-}" ]; then
  IFS=, read -ra spaces <<<"$SPACES"
else
  spaces=()
  for f in "$spaces_dir"/*.json.gz; do [ -e "$f" ] && spaces+=("$(basename "$f" .json.gz)"); done
fi
((${#spaces[@]})) || { echo "run.sh: no recorded spaces (*.json.gz) in $spaces_dir" >&2; exit 2; }

[ -x "$build/hone" ] || { echo "run.sh: no hone binary in $build: build it first" >&2; exit 2; }
for s in "${spaces[@]}"; do
  [ -f "$spaces_dir/$s.json.gz" ] || { echo "run.sh: the recorded space $spaces_dir/$s.json.gz is missing" >&2; exit 2; }
done
mkdir -p "$out"

for s in "${spaces[@]}"; do
  echo "run.sh: hone replay $s" >&2
  "$build/hone" replay --cache "$spaces_dir/$s.json.gz" --strategy all --budget "$budgets" --seeds "$seeds" --jobs "$jobs" --json \
    > "$out/$s.json.part"
  mv "$out/$s.json.part" "$out/$s.json"
done

if [ ! -x "$out/venv/bin/python" ]; then
  python3 -m venv "$out/venv"
  "$out/venv/bin/pip" install -q kernel_tuner
fi
caches=()
for s in "${spaces[@]}"; do caches+=(--cache "$spaces_dir/$s.json.gz"); done
echo "run.sh: Kernel Tuner $("$out/venv/bin/python" -c 'import kernel_tuner; print(kernel_tuner.__version__)' 2>/dev/null || echo '?') in simulation mode" >&2
"$out/venv/bin/python" "$root/bench/replay/kt_replay.py" "${caches[@]}" --budgets "$budgets" --seeds "$seeds" --jobs "$jobs" \
  --runs "$out/kt-runs.jsonl" --strategies "$kt_strategies" > "$out/kt.json"

python3 "$root/bench/replay/table.py" --chosen-on "$chosen_on" "$out/kt.json" $(for s in "${spaces[@]}"; do echo "$out/$s.json"; done) | tee "$out/table.md"

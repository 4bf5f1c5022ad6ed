#!/usr/bin/env bash
# The replay benchmark: hone's strategies and Kernel Tuner's (in its simulation mode) on the three
# recorded spaces in ../shared/data/tuning-spaces, same budgets and seeds, one table at the end.
#
#   bench/replay/run.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR holds the hone binary (default build); OUT_DIR gets the JSON of every part and the
# table (default BUILD_DIR/bench-replay). Kernel Tuner is installed from PyPI into OUT_DIR/venv on
# the first run. Kernel Tuner's part is the long one (about an hour on two cores): its runs are
# kept in OUT_DIR/kt-runs.jsonl and a rerun resumes them. SEEDS, BUDGETS, KT_STRATEGIES and JOBS
# override the defaults.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/bench-replay}
seeds=${SEEDS:-50}
budgets=${BUDGETS:-50,100,200,400}
jobs=${JOBS:-$(nproc)}
spaces_dir="$root/../shared/data/tuning-spaces"
spaces=(gemm_RTX_3090 convolution_A100 dedispersion_A100)

[ -x "$build/hone" ] || { echo "run.sh: no hone binary in $build: build it first" >&2; exit 2; }
for s in "${spaces[@]}"; do
  [ -f "$spaces_dir/$s.json.gz" ] || { echo "run.sh: the recorded space $spaces_dir/$s.json.gz is missing" >&2; exit 2; }
done
mkdir -p "$out"

for s in "${spaces[@]}"; do
  echo "run.sh: hone replay $s" >&2
  "$build/hone" replay --cache "$spaces_dir/$s.json.gz" --strategy all --budget "$budgets" --seeds "$seeds" --jobs "$jobs" --json \
    > "$out/$s.json"
done

if [ ! -x "$out/venv/bin/python" ]; then
  python3 -m venv "$out/venv"
  "$out/venv/bin/pip" install -q kernel_tuner
fi
kt_args=()
[ -n "${KT_STRATEGIES:-}" ] && kt_args+=(--strategies "$KT_STRATEGIES")
caches=()
for s in "${spaces[@]}"; do caches+=(--cache "$spaces_dir/$s.json.gz"); done
echo "run.sh: Kernel Tuner $("$out/venv/bin/python" -c 'import kernel_tuner; print(kernel_tuner.__version__)' 2>/dev/null || echo '?') in simulation mode" >&2
"$out/venv/bin/python" "$root/bench/replay/kt_replay.py" "${caches[@]}" --budgets "$budgets" --seeds "$seeds" --jobs "$jobs" \
  --runs "$out/kt-runs.jsonl" "${kt_args[@]}" > "$out/kt.json"

python3 "$root/bench/replay/table.py" "$out/kt.json" $(for s in "${spaces[@]}"; do echo "$out/$s.json"; done) | tee "$out/table.md"

#!/usr/bin/env bash
# libFuzzer on every reader (clang, ASan + UBSan; preset fuzz, build-fuzz/): replays each seed
# corpus in tests/fuzz/corpus/<target>/, then fuzzes each target for SECONDS (default 30).
# New inputs go to build-fuzz/corpus/<target>/, crashes to build-fuzz/artifacts/<target>/.
# Targets run side by side, one per core.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     # targets: text binary npy ply image load centroids
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-30}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(text binary npy ply image load centroids)
"$root/scripts/install-deps.sh"
jobs=$(nproc 2>/dev/null || echo 2)
[ -f build-fuzz/CMakeCache.txt ] || cmake --preset fuzz
cmake --build build-fuzz -j "$jobs" --target "${targets[@]/#/fuzz_}"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
# One target: replay its seeds, then fuzz. Writes its summary to $artifacts/summary.txt and
# exits non-zero on a failure (the crashing input is in $artifacts).
fuzz_target() {
  local target=$1
  local binary=build-fuzz/tests/fuzz/fuzz_$target seeds=tests/fuzz/corpus/$target
  local work=build-fuzz/corpus/$target artifacts=build-fuzz/artifacts/$target
  mkdir -p "$work" "$artifacts"
  if ! "$binary" -runs=0 -artifact_prefix="$artifacts/" "$seeds" > "$artifacts/replay.log" 2>&1; then
    { echo "== fuzz_$target: replaying its $(ls "$seeds" | wc -l) seeds FAILED"
      tail -40 "$artifacts/replay.log"; } > "$artifacts/summary.txt"
    return 1
  fi
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: the loaders' budget is far below.
  if ! "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 "$work" "$seeds" \
      > "$artifacts/fuzz.log" 2>&1; then
    { echo "== fuzz_$target: FAILED while fuzzing"; tail -60 "$artifacts/fuzz.log"; } \
      > "$artifacts/summary.txt"
    return 1
  fi
  { echo -n "== fuzz_$target: $(ls "$seeds" | wc -l) seeds replayed, fuzzed ${seconds} s: "
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$artifacts/fuzz.log" |
      tr -s ' \n' ' ' | sed 's/stat:://g'
    echo; } > "$artifacts/summary.txt"
}

# As many targets at once as there are cores: each still gets SECONDS of its own.
failed=()
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  pids=()
  for target in "${batch[@]}"; do
    echo "== fuzz_$target: replaying seeds, then fuzzing for $seconds s"
    fuzz_target "$target" &
    pids+=($!)
  done
  for index in "${!batch[@]}"; do
    wait "${pids[$index]}" || failed+=("${batch[$index]}")
    cat "build-fuzz/artifacts/${batch[$index]}/summary.txt"
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures in ${failed[*]} (inputs in build-fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no failures"

#!/usr/bin/env bash
# Runs on a GPU machine with device-gui/run.tar.xz carried along (device-run/new: gpu_tests,
# kmeans-bench, libkmeans_engine.so): the high-dimensional family's tests, compute-sanitizer on
# them, its kmeans-bench cases, and PyTorch's Lloyd on the same shapes. Results go to $OUT.
#   bash scripts/device/high-dim-checks.sh tests|sanitize|bench|torch ...
set -uo pipefail
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT" /tmp/kms-run
[ -x /tmp/kms-run/device-run/new/gpu_tests ] || tar -C /tmp/kms-run -xJf device-gui/run.tar.xz || exit 1
R=/tmp/kms-run/device-run/new
export LD_LIBRARY_PATH=$R
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for step in "$@"; do
  case $step in
    tests)
      echo "== gpu_tests (all) =="
      timeout 400 "$R/gpu_tests" --gtest_brief=1 2>&1 | grep -v "^Running main\|Skipped\|needs 2 CUDA" |
        tee "$OUT/gpu_tests.log" | tail -25 ;;
    sanitize)
      local_filter='Shapes/HighDimGpuVersusCpu.*n3000_d65*:Dims/HighDimNearTies.*d128*'
      for tool in memcheck racecheck; do
        echo "== compute-sanitizer --tool $tool ($local_filter) =="
        timeout 250 compute-sanitizer --tool "$tool" --error-exitcode 9 "$R/gpu_tests" \
          --gtest_brief=1 --gtest_filter="$local_filter" > "$OUT/sanitize-$tool.log" 2>&1
        echo "exit $?"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/sanitize-$tool.log" | tail -4
      done ;;
    bench)
      echo "== kmeans-bench, high-dimensional cases =="
      timeout 400 "$R/kmeans-bench" --no-cpu --only "${BENCH_ONLY:-d=128|d=768}" ${BENCH_ARGS:-} \
        --markdown "$OUT/bench-high-dim.md" 2>&1 | tail -8 ;;
    torch)
      echo "== PyTorch's Lloyd, same shapes =="
      timeout 200 python3 "$here/lloyd_pytorch.py" 2097152 128 1024 2048 2>&1 | tail -2
      timeout 200 python3 "$here/lloyd_pytorch.py" 1048576 768 1024 2048 2>&1 | tail -2 ;;
  esac
done

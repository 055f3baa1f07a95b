#!/usr/bin/env bash
# Runs on the GPU machine with device-gui/run.tar.xz carried along: device-run/new holds a build
# (gpu_tests, engine_tests, kmeans-bench, libkmeans_engine.so) and device-run/old an earlier
# build's kmeans-bench and libkmeans_engine.so. Both benchmarks run in one call, alternating, on
# the same machine.
#   bash scripts/device/compare-run.sh tests|bench|multi ...   (BENCH_ARGS adds options)
set -uo pipefail
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT" /tmp/kms-run
[ -x /tmp/kms-run/device-run/new/gpu_tests ] || tar -C /tmp/kms-run -xJf device-gui/run.tar.xz || exit 1
R=/tmp/kms-run/device-run
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for step in "$@"; do
  case $step in
    tests)
      echo "== gpu_tests =="
      LD_LIBRARY_PATH=$R/new timeout 400 "$R/new/gpu_tests" --gtest_brief=1 2>&1 | tee "$OUT/gpu_tests.log" | tail -30
      echo "exit status ${PIPESTATUS[0]}" ;;
    multi)
      echo "== multi-GPU suite, then over NCCL's network path =="
      LD_LIBRARY_PATH=$R/new timeout 200 "$R/new/gpu_tests" --gtest_brief=1 --gtest_filter='CudaMultiGpu.*' 2>&1 | tail -12
      NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 LD_LIBRARY_PATH=$R/new timeout 200 "$R/new/gpu_tests" \
        --gtest_brief=1 --gtest_filter='CudaMultiGpu.*' 2>&1 | tail -12 ;;
    bench)
      for round in $(seq 1 "${ROUNDS:-2}"); do
        for lib in old new; do
          echo "== kmeans-bench on the $lib library, round $round =="
          LD_LIBRARY_PATH=$R/$lib timeout 280 "$R/$lib/kmeans-bench" --no-cpu ${BENCH_ARGS:-} \
            --markdown "$OUT/bench-$lib-$round.md" > "$OUT/bench-$lib-$round.log" 2>&1
          echo "exit status $?"
        done
      done
      # At most 8 files come back: the tables together, one log of each library.
      for f in "$OUT"/bench-*-*.md; do echo "## $(basename "$f" .md)"; cat "$f"; done > "$OUT/bench-all.md"
      rm -f "$OUT"/bench-*-*.md "$OUT"/bench-*-[2-9].log
      grep -h "^|" "$OUT/bench-all.md" | head -3 ;;
  esac
done

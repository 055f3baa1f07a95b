#!/usr/bin/env bash
# Runs on a machine of two or more GPUs (nvidia-h100-x4, nvidia-h200-x2, ...), from the repository
# root with device-gui/bundle.tar.xz carried along (scripts/device/bundle.sh --with-gui, then
# `tar -cf - device-bundle | xz -9 -T2 > device-gui/bundle.tar.xz`). Results go to $OUT.
#   bash scripts/device/multi-gpu-checks.sh before|tests|cli|errors|studio|bench ...
# before: the multi-GPU suite against device-bundle/libkmeans_engine.old.so (the library of an
#         earlier build, when present): on every GPU, and on two GPUs without peer access;
# tests:  the whole gpu_tests on every GPU, then the multi-GPU suite over NCCL's network path
#         (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1);
# cli:    kmeans-cli on one GPU, on every GPU (--devices all) and on the network path: the
#         centroids and labels files must be identical;
# errors: kmeans-cli's messages for a GPU that does not exist and for a missing NCCL library;
# studio: kmeans-studio offscreen on every GPU, with a screenshot;
# bench:  kmeans-bench's "all GPUs" cases (BENCH_ARGS adds options).
set -uo pipefail
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT"
root=/tmp/kms-bundle
if [ ! -x "$root/device-bundle/gpu_tests" ]; then
  mkdir -p "$root" && tar -C "$root" -xJf device-gui/bundle.tar.xz || exit 1
fi
B=$root/device-bundle
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi -L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1
multi='CudaMultiGpu.*:NcclLibrary.*'

run_before() {
  [ -f "$B/libkmeans_engine.old.so" ] || { echo "no earlier library in the bundle"; return; }
  mkdir -p /tmp/kms-old && cp "$B/libkmeans_engine.old.so" /tmp/kms-old/libkmeans_engine.so
  echo "== before the fix: $gpus GPUs =="
  LD_LIBRARY_PATH=/tmp/kms-old timeout 180 "$B/gpu_tests" --gtest_brief=1 \
    --gtest_filter="$multi" 2>&1 | tail -25
  echo "exit status ${PIPESTATUS[0]}"
  echo "== before the fix: GPUs 0 and 1, no peer access (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1) =="
  CUDA_VISIBLE_DEVICES=0,1 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 LD_LIBRARY_PATH=/tmp/kms-old \
    timeout 180 "$B/gpu_tests" --gtest_brief=1 --gtest_filter="$multi" 2>&1 | tail -25
  echo "exit status ${PIPESTATUS[0]}"
}
run_tests() {
  echo "== gpu_tests on $gpus GPUs =="
  timeout 420 "$B/gpu_tests" --gtest_brief=1 --gtest_output=xml:"$OUT/gpu_tests.xml" 2>&1 |
    tee "$OUT/gpu_tests.log" | tail -25
  echo "exit status ${PIPESTATUS[0]}"
  echo "== the multi-GPU suite over NCCL's network path (no peer access, no shared memory) =="
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 timeout 240 "$B/gpu_tests" --gtest_brief=1 \
    --gtest_filter="$multi" 2>&1 | tail -20
  echo "exit status ${PIPESTATUS[0]}"
}
run_cli() {
  # shellcheck disable=SC1091
  source "$B/qt/env.sh"
  cp "$B/libkmeans_engine.so" "$B/qt/lib/" 2>/dev/null
  local data=(--generate blobs --points "${CLI_POINTS:-20000000}" --dims 16 -k 256 --seed 3
    --max-iter 25 --tol 0)
  for run in 0 all all-net; do
    local devices=${run%-net} env=()
    [ "$run" = all-net ] && env=(NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)
    echo "== kmeans-cli --devices $devices ${env[*]} =="
    env "${env[@]}" /usr/bin/time -f "wall %e s" "$B/kmeans-cli" "${data[@]}" --devices "$devices" \
      --out-centroids "/tmp/centroids-$run.csv" --out-labels "/tmp/labels-$run.csv" \
      --report "$OUT/report-$run.json" 2>&1 | tail -4
    echo "exit status ${PIPESTATUS[0]}"
  done
  for run in all all-net; do
    cmp /tmp/centroids-0.csv "/tmp/centroids-$run.csv" && cmp /tmp/labels-0.csv "/tmp/labels-$run.csv" &&
      echo "one GPU and --devices $run: centroids and labels files identical"
  done
}
run_errors() {
  # shellcheck disable=SC1091
  source "$B/qt/env.sh"
  local data=(--generate blobs --points 1000000 --dims 16 -k 64 --seed 3 --max-iter 5)
  echo "== a GPU that does not exist =="
  "$B/kmeans-cli" "${data[@]}" --devices 0,7 2>&1 | tail -2
  echo "exit status ${PIPESTATUS[0]}"
  echo "== NCCL missing =="
  KMS_NCCL_LIBRARY=/opt/none/libnccl.so.2 "$B/kmeans-cli" "${data[@]}" --devices all 2>&1 | tail -2
  echo "exit status ${PIPESTATUS[0]}"
}
run_studio() {
  # shellcheck disable=SC1091
  source "$B/qt/env.sh"
  echo "== kmeans-studio on every GPU =="
  timeout 300 "$B/kmeans-studio" --no-persist --generate photo --points $((4096 * 4096)) --seed 1 \
    --backend cuda-all -k 64 --max-iterations 60 --tolerance 0 --speed flat --run \
    --quit-when-finished --print-stats --size 1600x1000 --image-mode split \
    --screenshot "$OUT/studio-all-gpus.png" 2>&1 | grep -v propagateSizeHints | tail -8
}
run_bench() {
  echo "== kmeans-bench, all GPUs =="
  timeout 500 "$B/kmeans-bench" --no-cpu --only "all GPUs" ${BENCH_ARGS:-} \
    --markdown "$OUT/bench-multi.md" 2>&1 | tee "$OUT/bench-multi.log" | tail -20
}
for step in "$@"; do
  "run_$step"
done

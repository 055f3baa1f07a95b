#!/usr/bin/env bash
# kmeans-cli under mpirun with one process a GPU, on a machine of two or more GPUs (the device
# tool's nvidia-h100-x4, ...). From the repository root there, with device-gui/bundle.tar.xz
# (scripts/device/bundle.sh --with-gui) and device-gui/ompi.tar.xz (scripts/device/ompi-bundle.sh,
# for a machine without MPI) carried along. Results go to $OUT.
#   bash scripts/device/ranks-gpu.sh tests|files|faults|scaling|seeding ...
# tests:   gpu_tests' CudaRanks (threads as processes) and the multi-GPU suite;
# files:   2 M × 16, k = 64 (and 8 M × 64, k = 256): one GPU, --devices all, mpirun -np GPUs
#          (even and uneven shares) and the same over NCCL's network path: identical files;
# faults:  a GPU rank killed at iteration 5: how long the others take to exit, the message, and the
#          checkpoint it leaves resumed on 2 processes to the same files;
# scaling: 200 M × 16 and 8 M × 64 at k = 256, one GPU against every GPU (mpirun and --devices
#          all), means of iterations 17-40; weak scaling at 50 M points a GPU; the time to the
#          first iteration against the reading of the shares (page cache dropped when allowed);
# seeding: the time to the first iteration on 200 M × 16, k = 256, greedy k-means++ against
#          k-means|| (the default there).
set -uo pipefail
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT"
root=/tmp/kms-bundle
if [ ! -x "$root/device-bundle/gpu_tests" ]; then
  mkdir -p "$root" && tar -C "$root" -xJf device-gui/bundle.tar.xz || exit 1
fi
B=$root/device-bundle
if ! command -v mpirun >/dev/null; then
  [ -d /tmp/ompi ] || { mkdir -p /tmp/ompi-x && tar -C /tmp/ompi-x -xJf device-gui/ompi.tar.xz && mv /tmp/ompi-x/* /tmp/ompi; }
  # shellcheck disable=SC1091
  source /tmp/ompi/env.sh
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC1091
source "$B/qt/env.sh"
cp "$B/libkmeans_engine.so" "$B/qt/lib/" 2>/dev/null
export LD_LIBRARY_PATH="$B:$LD_LIBRARY_PATH"
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi -L
mpirun --version | head -1
cli=$B/kmeans-cli
data=/tmp/kms-data
mkdir -p "$data"

blobs() {  # blobs FILE N D GROUPS: float32 .npy written in chunks
  python3 - "$@" <<'PY'
import sys, numpy as np
path, n, d, groups = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(3)
centres = rng.uniform(-10, 10, (groups, d)).astype(np.float32)
out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, d))
step = 1 << 22
for at in range(0, n, step):
    m = min(step, n - at)
    x = rng.standard_normal((m, d), dtype=np.float32) * np.float32(1.5)
    x += centres[rng.integers(0, groups, m)]
    out[at:at + m] = x
out.flush()
PY
}

run_tests() {
  echo "== gpu_tests: CudaRanks and the multi-GPU suite =="
  timeout 400 "$B/gpu_tests" --gtest_brief=1 --gtest_filter='CudaRanks.*:CudaMultiGpu.*' 2>&1 | tail -15
  echo "exit status ${PIPESTATUS[0]}"
  echo "== CudaRanks over NCCL's network path =="
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 timeout 200 "$B/gpu_tests" --gtest_brief=1 \
    --gtest_filter='CudaRanks.*' 2>&1 | tail -6
  echo "exit status ${PIPESTATUS[0]}"
}

same() {  # same A B WHAT
  if cmp -s "$1-labels.csv" "$2-labels.csv" && cmp -s "$1-centroids.csv" "$2-centroids.csv"; then
    echo "IDENTICAL: $3"
  else
    echo "DIFFERENT: $3"
  fi
}

run_files() {
  [ -f "$data/b2m.npy" ] || blobs "$data/b2m.npy" 2000000 16 64
  [ -f "$data/b8m64.npy" ] || blobs "$data/b8m64.npy" 8000000 64 200
  for set in "b2m 64" "b8m64 256"; do
    read -r name k <<<"$set"
    local common=("$data/$name.npy" -k "$k" --seed 5 --backend cuda -q --max-iter 60)
    "$cli" "${common[@]}" --out-labels "/tmp/$name-one-labels.csv" --out-centroids "/tmp/$name-one-centroids.csv"
    "$cli" "${common[@]}" --devices all --out-labels "/tmp/$name-all-labels.csv" --out-centroids "/tmp/$name-all-centroids.csv"
    same "/tmp/$name-one" "/tmp/$name-all" "$name k=$k: --devices all ($gpus GPUs) against one GPU"
    for run in "even" "uneven" "net"; do
      local extra=() env=() exported=(-x LD_LIBRARY_PATH)
      [ "$run" = uneven ] && extra=(--rank-shares "$(seq -s, 1 "$gpus")")
      # NCCL's network path: exported only where set (mpirun warns about unset variables).
      [ "$run" = net ] && env=(NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1) &&
        exported+=(-x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE)
      env "${env[@]}" timeout 300 mpirun -np "$gpus" "${exported[@]}" \
        "$cli" "${common[@]}" "${extra[@]}" \
        --out-labels "/tmp/$name-$run-labels.csv" --out-centroids "/tmp/$name-$run-centroids.csv" 2>&1 | tail -3
      same "/tmp/$name-one" "/tmp/$name-$run" "$name k=$k: mpirun -np $gpus, one process a GPU, shares $run"
    done
  done
}

run_faults() {
  [ -f "$data/b8m64.npy" ] || blobs "$data/b8m64.npy" 8000000 64 200
  local common=("$data/b8m64.npy" -k 256 --seed 5 --backend cuda -q --max-iter 60)
  [ -f /tmp/b8m64-one-labels.csv ] ||
    "$cli" "${common[@]}" --out-labels /tmp/b8m64-one-labels.csv --out-centroids /tmp/b8m64-one-centroids.csv
  local start=$(date +%s.%N)
  KMS_TEST_KILL_RANK=2:5 timeout 120 mpirun -np "$gpus" -x LD_LIBRARY_PATH -x KMS_TEST_KILL_RANK \
    "$cli" "${common[@]}" --checkpoint /tmp/gpu.ckpt --checkpoint-every 2 2>&1 | grep -v "^\s*$" | tail -6
  echo "exit status ${PIPESTATUS[0]} after $(python3 -c "import time; print(round(time.time() - $start, 1))") s"
  timeout 300 mpirun -np 2 -x LD_LIBRARY_PATH "$cli" "${common[@]}" --resume /tmp/gpu.ckpt \
    --out-labels /tmp/b8m64-resumed-labels.csv --out-centroids /tmp/b8m64-resumed-centroids.csv 2>&1 | tail -2
  same /tmp/b8m64-one /tmp/b8m64-resumed "b8m64 k=256: a checkpoint of $gpus GPU processes (one killed) resumed on 2"
}

mean_ms() {  # mean compute ms of iterations 17-40 of a report: whole launches of the
  # single-process loop (16 iterations a launch, each its share) and single steps alike
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ms = [it["ms"]["compute"] for it in r["iterations"][16:40]]
print(f"{sum(ms) / len(ms):.3f}")
PY
}

time_one() {  # time_one TAG FILE K [mpirun|all|one]
  local tag=$1 file=$2 k=$3 how=$4
  local common=("$file" -k "$k" --seed 5 --backend cuda --max-iter 40 --tol 0 --report "$OUT/$tag.json")
  sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
  case $how in
    one) "$cli" "${common[@]}" 2>&1 | grep -E "phases|first iteration" ;;
    all) "$cli" "${common[@]}" --devices all 2>&1 | grep -E "phases|first iteration" ;;
    mpirun) timeout 500 mpirun -np "$gpus" -x LD_LIBRARY_PATH "$cli" "${common[@]}" 2>&1 | grep -E "phases|first iteration|rror" ;;
  esac
  echo "$tag: $(mean_ms "$OUT/$tag.json") ms per iteration (mean of iterations 17-40)"
}

run_scaling() {
  [ -f "$data/b200m.npy" ] || blobs "$data/b200m.npy" 200000000 16 256
  [ -f "$data/b8m64.npy" ] || blobs "$data/b8m64.npy" 8000000 64 200
  [ -f "$data/b50m.npy" ] || blobs "$data/b50m.npy" 50000000 16 256
  time_one 200m-one "$data/b200m.npy" 256 one
  time_one 200m-all "$data/b200m.npy" 256 all
  time_one 200m-mpi "$data/b200m.npy" 256 mpirun
  time_one 8m64-one "$data/b8m64.npy" 256 one
  time_one 8m64-all "$data/b8m64.npy" 256 all
  time_one 8m64-mpi "$data/b8m64.npy" 256 mpirun
  time_one 50m-one "$data/b50m.npy" 256 one
}

run_seeding() {  # the time to the first iteration on every GPU with each seeding (issue 34)
  [ -f "$data/b200m.npy" ] || blobs "$data/b200m.npy" 200000000 16 256
  for init in greedy "kmeans||"; do  # kmeans|| is the default here (rows × d × k ≥ 2^35)
    sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
    echo "== 200 M × 16, k = 256, --init $init, mpirun -np $gpus"
    timeout 500 mpirun -np "$gpus" -x LD_LIBRARY_PATH "$cli" "$data/b200m.npy" -k 256 --seed 5 \
      --backend cuda --max-iter 1 --init "$init" 2>&1 | grep -E "phases|first iteration|rror"
  done
}
for step in "$@"; do
  "run_$step"
done

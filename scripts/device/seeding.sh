#!/usr/bin/env bash
# Greedy k-means++ against k-means|| seeding on the CUDA engine, same data, seed and machine, one
# run: the seeding's time (kmeans-cli's "starts" phase of a one-iteration run, the iteration
# included) and where each start's run ends (inertia after 40 iterations, --tol 0).
#   bash scripts/device/seeding.sh BUNDLE_DIR      (kmeans-cli, libkmeans_engine.so, qt/env.sh)
set -uo pipefail
B=$1
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT"
# shellcheck disable=SC1091
source "$B/qt/env.sh"
export LD_LIBRARY_PATH="$B:$LD_LIBRARY_PATH"
cli=$B/kmeans-cli
data=/tmp/kms-data
mkdir -p "$data"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

write() {  # write FILE N D GROUPS (0 groups: standard normal rows)
  python3 - "$@" <<'PY'
import sys, numpy as np
path, n, d, groups = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(3)
centres = rng.uniform(-10, 10, (max(groups, 1), d)).astype(np.float32)
out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, d))
step = 1 << 22
for at in range(0, n, step):
    m = min(step, n - at)
    x = rng.standard_normal((m, d), dtype=np.float32)
    if groups:
        x = x * np.float32(1.5) + centres[rng.integers(0, groups, m)]
    out[at:at + m] = x
out.flush()
PY
}

inertia() {  # the last iteration's inertia of a report
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['iterations'][-1]['inertia'])" "$1"
}

compare() {  # compare TAG FILE K
  local tag=$1 file=$2 k=$3
  # --init random costs nothing: its one-iteration run is the run's preparation and iteration.
  echo "$tag --init random: preparation + 1 iteration: $("$cli" "$file" -k "$k" --seed 5 --backend cuda \
    --init random --max-iter 1 2>&1 | grep -oE "starts [0-9.]+ ms")"
  for init in greedy "kmeans||"; do
    local name=${init//|/p}
    local common=("$file" -k "$k" --seed 5 --backend cuda --init "$init")
    local phases
    phases=$(KMS_TRACE_SEEDING=1 "$cli" "${common[@]}" --max-iter 1 2>&1 | grep -oE "starts [0-9.]+ ms|k-means\|\|: .*")
    echo "$tag --init $init: seeding + 1 iteration: $(echo "$phases" | tr '\n' ' ')"
    [ "${QUALITY:-1}" = 1 ] || continue
    "$cli" "${common[@]}" --max-iter 40 --tol 0 -q --report "$OUT/run.json" >/dev/null 2>&1
    echo "$tag --init $init: inertia after 40 iterations: $(inertia "$OUT/run.json")"
  done
}

# CASES picks some: "b50m b8m64 n2m128" (all, the default).
for c in ${CASES:-b50m b8m64 n2m128}; do
  case $c in
    b50m) [ -f "$data/b50m.npy" ] || write "$data/b50m.npy" 50000000 16 256
          compare "50M x 16 blobs, k=256" "$data/b50m.npy" 256 ;;
    b8m64) [ -f "$data/b8m64.npy" ] || write "$data/b8m64.npy" 8000000 64 200
           compare "8M x 64 blobs, k=256" "$data/b8m64.npy" 256 ;;
    n2m128) [ -f "$data/n2m128.npy" ] || write "$data/n2m128.npy" 2000000 128 0
            compare "2M x 128 normal, k=1024" "$data/n2m128.npy" 1024 ;;
  esac
done

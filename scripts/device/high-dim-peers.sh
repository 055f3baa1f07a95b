#!/usr/bin/env bash
# Issue 32's same-run comparison on the GPU machine: kmeans-cli (CUDA) against PyTorch's Lloyd
# and Flash-KMeans on the same data from the same random start, 40 iterations each, the median
# of iterations 6-40 (whole-run speed, not settled iterations).
#   scripts/device/high-dim-peers.sh BUNDLE [FLASH_DIR] [CASES]
# BUNDLE: scripts/device/bundle.sh --with-gui's folder (kmeans-cli, its engine and qt/env.sh);
# FLASH_DIR: a folder holding the flash_kmeans package (carried, never committed);
# CASES: "N:D:K[:randn] ..." (default the issue's three). Results in $OUT (or /tmp/kms-out).
set -uo pipefail
B=$(cd "$1" && pwd)
FLASH=${2:-}
CASES=${3:-"2097152:128:1024 2097152:128:1024:randn 1048576:768:1024 1048576:256:4096"}
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$HERE/high_dim_peers.py
[ -f "$PEERS" ] || PEERS=$B/high_dim_peers.py
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT"
# shellcheck disable=SC1091
source "$B/qt/env.sh"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/peers-gpu.txt"
for c in $CASES; do
  IFS=: read -r n d k kind <<<"$c"
  dir=/tmp/case-$n-$d-$k-${kind:-mix}
  mkdir -p "$dir"
  python3 "$PEERS" make "$n" "$d" "$k" 7 "$dir" ${kind:+--$kind}
  echo "== $n x $d, k = $k, ${kind:-mixture of $k groups}"
  timeout 300 "$B/kmeans-cli" "$dir/X.npy" -k "$k" --init-centroids "$dir/C.csv" --backend cuda \
    --max-iter 40 --tol 0 --empty-clusters keep --report "$dir/report.json" -q ||
    echo "kmeans-cli failed: $?"
  python3 - "$dir/report.json" <<'PY' | tee -a "$OUT/peers.jsonl"
import json, statistics, sys
r = json.load(open(sys.argv[1]))
its = r.get("iterations") or r["starts"][0]["iterations"]
ms = [i["ms"]["compute"] for i in its]
print(json.dumps({"peer": "KMeans Studio (kmeans-cli, CUDA)", "iterations": len(ms),
                  "median_6_40_ms": statistics.median(ms[5:40]),
                  "median_last10_ms": statistics.median(ms[-10:])}))
PY
  timeout 400 python3 "$PEERS" run "$dir/X.npy" "$dir/C.npy" 40 ${FLASH:+--flash "$FLASH"} |
    tee -a "$OUT/peers.jsonl"
done

#!/usr/bin/env bash
# Runs on the GPU machine: kmeans-studio offscreen with the CUDA backend on a 4096 × 4096
# photo-like image, against kmeans-cli on the same data, and saves screenshots to $OUT.
#   bash scripts/device/gui-run.sh   (with device-gui/gui.tar.xz carried along)
set -uo pipefail
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT" /tmp/gui
tar -C /tmp/gui -xJf device-gui/gui.tar.xz
source /tmp/gui/qt/env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
cd /tmp/gui
points=$((4096 * 4096))
common=(--generate photo --points $points --seed 1 --backend cuda)
for k in 16 64 256; do
  echo "== k = $k: kmeans-cli, then kmeans-studio with the window open (flat out, same run) =="
  ./kmeans-cli "${common[@]}" -k $k --max-iter 400 --tol 0 > "$OUT/cli-k$k.log" 2>&1
  tail -3 "$OUT/cli-k$k.log"
  timeout 300 ./kmeans-studio --no-persist "${common[@]}" -k $k --max-iterations 400 --tolerance 0 \
    --speed flat --run --quit-when-finished --print-stats --size 1600x1000 --image-mode split \
    --screenshot "$OUT/studio-cuda-photo-4096-k$k.png" 2>&1 |
    grep -v propagateSizeHints
done
echo "== kmeans-studio, mid-run screenshot (k = 256, paced at 60 it/s) =="
timeout 300 ./kmeans-studio --no-persist "${common[@]}" -k 256 --max-iterations 400 --tolerance 0 \
  --speed 60 --run --size 1600x1000 --image-mode side --screenshot-after-ms 3000 \
  --screenshot "$OUT/studio-cuda-photo-4096-running.png" 2>&1 | grep -v propagateSizeHints
ls -la "$OUT"

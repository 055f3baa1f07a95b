#!/usr/bin/env bash
# Runs on the two-GPU machine (nvidia-h200-x2): kmeans-cli on one GPU and on both with the same
# data and seed (the outputs must be identical), the errors for a missing GPU and a missing NCCL,
# and kmeans-studio offscreen on every GPU with a screenshot. Results go to $OUT.
#   bash scripts/device/multi-gpu-run.sh   (with device-gui/gui.tar.xz carried along: the
#   binaries and the Qt runtime from ../shared/tools/qt-device-bundle.sh)
set -uo pipefail
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT" /tmp/gui
tar -C /tmp/gui -xJf device-gui/gui.tar.xz
source /tmp/gui/qt/env.sh
cd /tmp/gui
nvidia-smi -L
data=(--generate blobs --points 10000000 --dims 16 --groups 64 -k 256 --seed 3 --max-iter 25 --tol 0)
for devices in 0 all; do
  echo "== kmeans-cli --devices $devices =="
  /usr/bin/time -f "wall %e s" ./kmeans-cli "${data[@]}" --devices $devices \
    --out-centroids "$OUT/centroids-$devices.csv" --out-labels "/tmp/labels-$devices.csv" \
    --report "$OUT/report-$devices.json" 2>&1 | tail -4
done
cmp "$OUT/centroids-0.csv" "$OUT/centroids-all.csv" && cmp /tmp/labels-0.csv /tmp/labels-all.csv &&
  echo "one GPU and both GPUs: centroids and labels files identical"
echo "== a GPU that does not exist =="
./kmeans-cli "${data[@]}" --devices 0,7 2>&1 | tail -2; echo "exit status ${PIPESTATUS[0]}"
echo "== NCCL missing =="
KMS_NCCL_LIBRARY=/opt/none/libnccl.so.2 ./kmeans-cli "${data[@]}" --devices all 2>&1 | tail -2
echo "exit status ${PIPESTATUS[0]}"
echo "== kmeans-studio on every GPU =="
timeout 300 ./kmeans-studio --no-persist --generate photo --points $((4096 * 4096)) --seed 1 \
  --backend cuda-all -k 64 --max-iterations 60 --tolerance 0 --speed flat --run \
  --quit-when-finished --print-stats --size 1600x1000 --image-mode split \
  --screenshot "$OUT/studio-all-gpus.png" 2>&1 | grep -v propagateSizeHints | tail -8
ls -la "$OUT"

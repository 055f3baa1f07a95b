#!/usr/bin/env bash
# Whole runs on the GPU machine (issue 33): kmeans-cli from start to palette PNG, best of N, and
# kmeans-studio's best of N on screen, on a real 17.98 MP JPEG — the three phone photos of
# github.com/tomsaleeba/test-data-site stacked (scripts/device/stack_photos.py, then saved as a
# JPEG). Needs the bundle built with --with-gui (kmeans-cli, kmeans-studio and qt/), and
# optionally a previous build's kmeans-cli and libkmeans_engine.so in $OLD for a before/after
# in the same session.
#   device-bundle/whole-runs.sh PHOTO.jpg [ROUNDS]
# Prints one line per command: wall milliseconds, exit status, command; the phases of one run of
# each kind and the studio's own timings. Logs and reports go to $OUT.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
photo=${1:?usage: whole-runs.sh PHOTO.jpg [ROUNDS]}
rounds=${2:-3}
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT"
# shellcheck disable=SC1091
source "$B/qt/env.sh"
export LD_LIBRARY_PATH="$B:$LD_LIBRARY_PATH"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
timed() {
  local s e rc
  s=$(date +%s%N)
  "$@" > "$OUT/last.log" 2>&1
  rc=$?
  e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 )) ms rc=$rc  ${*#"$B/"}"
}
old() { LD_LIBRARY_PATH="$OLD:$LD_LIBRARY_PATH" "$OLD/kmeans-cli" "$@"; }
echo "== kmeans-cli: one start, best of 64 and 256 (k = 16), then k = 64 and 256 =="
for _ in $(seq "$rounds"); do
  [ -n "${OLD:-}" ] && timed old "$photo" -k 16 --backend cuda --out-image /tmp/old.png
  timed "$B/kmeans-cli" "$photo" -k 16 --backend cuda --out-image /tmp/one.png
  timed "$B/kmeans-cli" "$photo" -k 16 --backend cuda --out-image /tmp/b64.png --restarts 64
  timed "$B/kmeans-cli" "$photo" -k 16 --backend cuda --out-image /tmp/b256.png --restarts 256
done
for k in 64 256; do
  timed "$B/kmeans-cli" "$photo" -k $k --backend cuda --out-image /tmp/k.png
  timed "$B/kmeans-cli" "$photo" -k $k --backend cuda --out-image /tmp/k.png --restarts 64
done
timed "$B/kmeans-cli" "$photo" -k 16 --backend cuda --restarts 1000 --report "$OUT/best-of-1000.json"
for n in 1 64; do
  "$B/kmeans-cli" "$photo" -k 16 --backend cuda --restarts $n --out-image /tmp/p.png \
    --report "$OUT/best-of-$n.json" > "$OUT/cli-best-of-$n.log" 2>&1
  echo "best of $n: $(grep -E '^(phases|quality)' "$OUT/cli-best-of-$n.log" | tr '\n' ' ')"
done
echo "== kmeans-studio: best of N on screen after opening =="
for _ in $(seq "$rounds"); do
  for n in 1 64; do
    timeout 120 "$B/kmeans-studio" --no-persist --open "$photo" --k 16 --restarts $n \
      --backend cuda --run --quit-when-finished --print-stats --size 1600x1000 \
      --screenshot "$OUT/studio-best-of-$n.png" 2>&1 | grep "result on screen" |
      sed "s/^/best of $n: /"
  done
done

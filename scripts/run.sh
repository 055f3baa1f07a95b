#!/usr/bin/env bash
# Quick start, command 1: set up, build, and quantise the bundled sample photograph to 16
# colours. With a display, opens it in kmeans-studio; without one, runs the same job through
# kmeans-cli and writes out/tulip-field-16.png (a palette PNG), out/tulip-field-16-dithered.png,
# out/tulip-field-16.gpl and out/tulip-field-16-report.json.
#   scripts/run.sh [-k N] [--backend auto|cuda|cpu]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
k=16
backend=auto
while [ $# -gt 0 ]; do
  case "$1" in
    -k) k=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    *) echo "usage: scripts/run.sh [-k N] [--backend auto|cuda|cpu]" >&2; exit 1 ;;
  esac
done
photo=resources/samples/tulip-field.png
# Only the program this run uses is built (scripts/test.sh builds the rest).
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  "$root/scripts/build.sh" --app kmeans-studio
  exec build/studio/kmeans-studio --open "$photo" --k "$k" --backend "$backend" --run
fi
"$root/scripts/build.sh" --app kmeans-cli
echo "No display: running the same job headless with kmeans-cli."
mkdir -p out
base="out/tulip-field-$k"
build/app/kmeans-cli "$photo" -k "$k" --backend "$backend" --seed 1 --restarts 8 \
  --out-image "$base.png" --out-palette "$base.gpl" --report "$base-report.json"
build/app/kmeans-cli "$photo" -k "$k" --backend "$backend" --seed 1 --restarts 8 --quiet \
  --dither fs --out-image "$base-dithered.png"
echo "Wrote $base.png, $base-dithered.png, $base.gpl and $base-report.json"

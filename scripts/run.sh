#!/usr/bin/env bash
# Quick start, command 1: set up, build, and quantise the bundled sample photo to 16 colours.
# With a display, opens it in kmeans-studio; without one, runs the same job through kmeans-cli
# and writes out/landscape-16.png, out/landscape-16.gpl and out/landscape-16-report.json.
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
"$root/scripts/build.sh"
photo=$(ls resources/samples/landscape.* | head -n 1)
if [ -x build/app/kmeans-studio ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec build/app/kmeans-studio --open "$photo" --k "$k" --backend "$backend" --run
fi
echo "No display: running the same job headless with kmeans-cli."
mkdir -p out
build/app/kmeans-cli "$photo" -k "$k" --backend "$backend" --seed 1 \
  --out-image "out/landscape-$k.png" --out-palette "out/landscape-$k.gpl" \
  --report "out/landscape-$k-report.json"
echo "Wrote out/landscape-$k.png, out/landscape-$k.gpl and out/landscape-$k-report.json"

#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png: kmeans-studio runs each built-in sample under Xvfb (real
# X11 and Mesa's software OpenGL, so the 3-D view renders), takes a picture of its window and
# exits by itself. One more run on the offscreen platform shows the 3-D fallback (the way the
# GUI runs on a machine without X11 or OpenGL).
#
#   scripts/screenshots.sh                  # builds and uses build/ (as scripts/build.sh does)
#   KMS_STUDIO=path/to/kmeans-studio scripts/screenshots.sh
#   scripts/screenshots.sh --backend cuda   # extra arguments go to every run
#
# Needs xvfb-run (Debian: xvfb xauth). Settings are not read or written (--no-persist).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
studio="${KMS_STUDIO:-$root/build/studio/kmeans-studio}"
out="$root/docs/screenshots"
size="1600x1000"
extra=("$@")

if [ -z "${KMS_STUDIO:-}" ]; then
  "$root/scripts/build.sh"  # the README's build: installs what is missing, builds build/
fi
if [ ! -x "$studio" ]; then
  echo "screenshots: $studio not found (KMS_STUDIO names a kmeans-studio that is not there)" >&2
  exit 1
fi
if ! command -v xvfb-run >/dev/null; then
  echo "screenshots: xvfb-run not found (apt-get install xvfb xauth)" >&2
  exit 1
fi
mkdir -p "$out"

# shot NAME [PLATFORM] -- ARGS...: one run, one PNG; fails loudly if the app does not exit
# by itself within its own time-out.
shot() {
  local name="$1" platform="$2"
  shift 2
  local file="$out/$name.png"
  local args=(--no-persist --size "$size" --timeout-ms 120000 --screenshot "$file" "$@" "${extra[@]}")
  echo "screenshots: $name"
  if [ "$platform" = offscreen ]; then
    QT_QPA_PLATFORM=offscreen "$studio" "${args[@]}"
  else
    xvfb-run -a -s "-screen 0 1920x1200x24" env -u QT_QPA_PLATFORM "$studio" "${args[@]}"
  fi
  test -s "$file"
}

# Photo: converged, split view (original left of the line, 16-colour quantisation right).
shot photo-split xvfb --sample photo --run --view image --image-mode split --split 0.5

# Photo mid-run at a teaching pace, side by side, charts filling in.
shot photo-side-by-side-running xvfb --sample photo --speed 3 --run --view image \
  --image-mode side --screenshot-after-ms 2600

# Photo: best of 4 starts, the Dithered mode (Floyd-Steinberg in the palette's colour space).
shot photo-dithered xvfb --sample photo --restarts 4 --run --view image --image-mode dithered \
  --dither fs

# 2-D blobs: random start (seed 30) at 2 iterations/s, so the centroid trails show each move.
shot blobs-2d-trails xvfb --sample blobs --init random --seed 30 --speed 2 --run --view 2d

# Teaching: three centroids placed badly by hand (resources/samples/blobs-bad-start.csv), the
# Voronoi regions shaded; the assign half of iteration 1 (points take their nearest centroid),
# then its update (centroids move to the means, arrows from where they were).
shot teach-assign xvfb --sample blobs --view 2d --regions \
  --init-centroids "$root/resources/samples/blobs-bad-start.csv" --half-steps 1
shot teach-update xvfb --sample blobs --view 2d --regions \
  --init-centroids "$root/resources/samples/blobs-bad-start.csv" --half-steps 2
# Random start, iteration 2's assign: the points that changed cluster are ringed.
shot teach-changed xvfb --sample blobs --init random --seed 30 --view 2d --half-steps 3

# Which k? The sweep over k = 2..12, best of 4, on the blobs: elbow and silhouette agree on 5.
echo "screenshots: teach-sweep"
xvfb-run -a -s "-screen 0 1920x1200x24" env -u QT_QPA_PLATFORM "$studio" --no-persist \
  --timeout-ms 120000 --sample blobs --sweep 2..12 --restarts 4 \
  --screenshot "$out/teach-sweep.png" "${extra[@]}"
test -s "$out/teach-sweep.png"

# Compare initialisations: k-means++ (seed 4) against random points (seed 5), two half-steps.
echo "screenshots: teach-compare"
xvfb-run -a -s "-screen 0 1920x1200x24" env -u QT_QPA_PLATFORM "$studio" --no-persist \
  --timeout-ms 120000 --sample moons --seed 4 --compare --half-steps 4 \
  --screenshot "$out/teach-compare.png" "${extra[@]}"
test -s "$out/teach-compare.png"

# 3-D cloud in the OpenGL view, orbitable, converged from a random start.
shot cloud-3d xvfb --sample cloud --init random --seed 18 --speed 4 --run --view 3d

# The same on the offscreen platform: no OpenGL, so the rotatable 2-D projection with its note.
shot cloud-3d-fallback-offscreen offscreen --sample cloud --init random --seed 18 --speed 4 \
  --run --view 3d

# The photo's colours as points in RGB space, coloured by their palette entry.
shot photo-colour-space xvfb --sample photo --run --view 3d

echo "screenshots: wrote $(ls "$out"/*.png | wc -l) PNGs to $out"

#!/usr/bin/env bash
# Installs the Debian 12 packages KMeans Studio needs to build, test and run.
# Only missing packages are installed, so a second run costs a dpkg query and nothing else.
#
#   scripts/install-deps.sh          # everything (GUI, tests, loaders, fuzzing with clang,
#                                    # checking the package's desktop entry and metadata, the
#                                    # Python package with pybind11 and its tests: pytest and
#                                    # scikit-learn's estimator checks)
#   scripts/install-deps.sh --app    # only what building and running kmeans-cli and
#                                    # kmeans-studio needs (scripts/run.sh: the first command)
#   scripts/install-deps.sh --peers  # everything, and the peers the measurement scripts
#                                    # compare with (scikit-learn, Pillow, pngquant:
#                                    # scripts/quality, cpu_vs_sklearn.py)
#
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail

# What configuring and building the programs needs (every find_package the configure requires).
packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-declarative-dev
  qt6-datavisualization-dev libqcustomplot-dev qt6-image-formats-plugins
  libgl-dev libegl-dev libxkbcommon-dev libassimp-dev zlib1g-dev libeigen3-dev fonts-dejavu-core
)
if [ "${1:-}" != "--app" ]; then  # tests, MPI ranks, the Python package, fuzzing, packaging
  packages+=(
    libgtest-dev libopenmpi-dev openmpi-bin
    python3-numpy pybind11-dev python3-dev python3-pytest python3-sklearn
    xvfb xauth x11-apps clang desktop-file-utils appstream
    libgif-dev libwebp-dev libavcodec-dev libavformat-dev libswscale-dev  # clips (--animate)
  )
fi
if [ "${1:-}" = "--peers" ]; then
  packages+=(python3-pil pngquant)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Installs missing packages, configures (once) and builds KMeans Studio into build/.
# Re-running is fast: the package check is a dpkg query and the build is incremental.
#   scripts/build.sh [extra cmake -D options for the first configure]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"
# nvcc is often installed but not on PATH: let CMake find it (the CUDA backend is optional).
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build build -j "$jobs"

#!/usr/bin/env bash
# Installs missing packages, configures (once) and builds KMeans Studio into build/.
# Re-running is fast: the package check is a dpkg query and the build is incremental.
#   scripts/build.sh [extra cmake -D options for the first configure]
#       everything: the programs, the test suites, the Python package
#   scripts/build.sh --app TARGET... [-- extra cmake -D options]
#       only the packages the programs need and only the named targets (scripts/run.sh:
#       kmeans-cli or kmeans-studio); a first configure leaves the tests and the Python
#       package out, and a later full build turns them on
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
targets=()
if [ "${1:-}" = "--app" ]; then
  shift
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    targets+=("$1")
    shift
  done
  [ "${1:-}" = "--" ] && shift
  "$root/scripts/install-deps.sh" --app
else
  "$root/scripts/install-deps.sh"
fi
# nvcc is often installed but not on PATH: let CMake find it (the CUDA backend is optional).
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if [ ! -f build/CMakeCache.txt ]; then
  if [ ${#targets[@]} -gt 0 ]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKMS_BUILD_TESTS=OFF \
      -DKMS_WITH_PYTHON=OFF "$@"
  else
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  fi
elif [ ${#targets[@]} -eq 0 ] && grep -q '^KMS_BUILD_TESTS:BOOL=OFF' build/CMakeCache.txt; then
  # Configured by scripts/run.sh for the programs alone: now the tests and the Python package.
  cmake -S . -B build -DKMS_BUILD_TESTS=ON -DKMS_WITH_PYTHON=ON "$@"
fi
jobs=$(nproc 2>/dev/null || echo 2)
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build build -j "$jobs" --target "${targets[@]}"
else
  cmake --build build -j "$jobs"
fi

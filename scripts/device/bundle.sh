#!/usr/bin/env bash
# Builds the CUDA engine, its tests and kmeans-bench for Hopper (sm_90) and copies the binaries
# into device-bundle/ (git-ignored), ready to be carried to the GPU machine.
#   scripts/device/bundle.sh [--with-gui]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
qt=OFF
[ "${1:-}" = "--with-gui" ] && qt=ON
cmake -S . -B build-device -G Ninja -DKMS_WITH_CUDA=ON -DKMS_WITH_QT=$qt \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-device
rm -rf device-bundle
mkdir -p device-bundle
cp build-device/tests/gpu_tests build-device/tests/engine_tests build-device/app/bench/kmeans-bench \
  scripts/device/gpu-checks.sh scripts/device/whole-runs.sh scripts/device/photo_vs_pytorch.py scripts/device/stack_photos.py \
  device-bundle/
# The engine is a shared library: the programs find it beside them (gpu-checks.sh sets
# LD_LIBRARY_PATH; the Qt bundle below copies it into qt/lib).
cp build-device/gpu/libkmeans_engine.so device-bundle/
strip device-bundle/gpu_tests device-bundle/engine_tests device-bundle/kmeans-bench
strip --strip-unneeded device-bundle/libkmeans_engine.so
# Real photographs for the photo benchmark (any JPEG in $KMS_BENCH_PHOTOS).
if [ -n "${KMS_BENCH_PHOTOS:-}" ]; then
  mkdir -p device-bundle/photos
  cp $KMS_BENCH_PHOTOS device-bundle/photos/
fi
if [ "$qt" = ON ]; then
  cp build-device/studio/kmeans-studio build-device/app/kmeans-cli device-bundle/
  ../shared/tools/qt-device-bundle.sh device-bundle/qt device-bundle/kmeans-studio device-bundle/kmeans-cli >/dev/null
fi
du -sh device-bundle

#!/usr/bin/env bash
# Quick start, command 2: set up, build and run the whole test suite (CTest + GoogleTest).
# GPU tests skip with a reason when no CUDA device answers; GUI tests use Qt's offscreen
# platform, so no display is needed.
#   scripts/test.sh [ctest arguments, e.g. -L engine]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/build.sh"
export QT_QPA_PLATFORM=offscreen
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j "$jobs" "$@"

#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with device-bundle/ carried along:
#   device-bundle/gpu-checks.sh tests|bench|sanitize|faults|all
# (faults needs the bundle built with --with-gui: kmeans-cli and kmeans-studio against a GPU
# that fails at step 3, KMS_CUDA_FAULT_AT_ITERATION.)
# Logs and results go to $OUT (the device tool brings them back).
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"  # libkmeans_engine.so
OUT=${OUT:-/tmp/kms-out}
mkdir -p "$OUT"
mode=${1:-all}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"

run_tests() {
  echo "== engine_tests (CPU) =="
  "$B/engine_tests" --gtest_brief=1 2>&1 | tail -3
  echo "== gpu_tests =="
  timeout 420 "$B/gpu_tests" --gtest_brief=1 --gtest_output=xml:"$OUT/gpu_tests.xml" 2>&1 | tee "$OUT/gpu_tests.log" | tail -60
}
run_faults() {
  echo "== gpu_tests CudaFaults (a trapping kernel at step 3, in a process of its own) =="
  timeout 120 "$B/gpu_tests" --gtest_filter='CudaFaults.*' 2>&1 | tail -8
  [ -x "$B/kmeans-cli" ] || { echo "no kmeans-cli: build the bundle with --with-gui"; return; }
  # shellcheck disable=SC1091
  source "$B/qt/env.sh"
  echo "== kmeans-cli, GPU failing at step 3 =="
  KMS_CUDA_FAULT_AT_ITERATION=3 timeout 60 "$B/kmeans-cli" --generate blobs --points 200000 -k 8 \
    --backend cuda --max-iter 20 --tol 0 -q
  echo "exit status $? (3 expected)"
  echo "== kmeans-studio offscreen, GPU failing at step 3 =="
  QT_QPA_PLATFORM=offscreen KMS_CUDA_FAULT_AT_ITERATION=3 timeout 60 "$B/kmeans-studio" \
    --no-persist --generate blobs --points 200000 --k 8 --backend cuda --speed 5 --run \
    --size 1400x900 --screenshot "$OUT/studio-gpu-fault.png" --screenshot-after-ms 2500 \
    --timeout-ms 4000
  echo "exit status $? (0: the scripted screenshot was taken, with the run paused at the fault)"
}
run_bench() {
  # With the three phone photos in photos/ (stack_photos.py), the real-photo cases too.
  local photo=()
  if [ -f "$B/photos/lunch.jpg" ] && [ -f "$B/photos/cannon.jpg" ] && [ -f "$B/photos/saboteur.jpg" ]; then
    python3 "$B/stack_photos.py" /tmp/stacked.ppm "$B"/photos/{lunch,cannon,saboteur}.jpg &&
      photo=(--photo /tmp/stacked.ppm)
  fi
  echo "== kmeans-bench ${photo[*]} =="
  timeout 400 "$B/kmeans-bench" "${photo[@]}" ${BENCH_ARGS:-} --markdown "$OUT/bench.md" 2>&1 |
    tee "$OUT/bench.log" | tail -40
}
run_sanitize() {
  # Small cases only: the sanitizers slow kernels down by orders of magnitude.
  local filter='Grid/OneStepGpuVersusCpu.*n20*:Grid/OneStepGpuVersusCpu.*k130*:Grid/OneStepGpuVersusCpu.*n200000_d2_k7*:Grid/OneStepGpuVersusCpu.*n200000_d9_k300*:Grid/OneStepGpuVersusCpu.*n200000_d16_k1000*:Blobs/FullRunGpuVersusCpu.*d2_k5*:CudaEngine.EmptyClustersReseedLikeTheCpu:CudaEngine.DuplicatePointsMatchCpu:CudaEngine.KEqualsNGivesZeroInertia:CudaEngine.ErrorsMatchTheCpuBackend:CudaEngine.SnapshotBeforeTheFirstIteration:CudaEngine.DataLargerThanDeviceAndHostMemoryIsAClearError:CudaCounts.NearTiesAreResolvedLikeTheCpu:CudaCounts.ReseedingOfExpandedDataFollowsTheCpuOrder:CudaCounts.SeedingWithCountsMatchesTheCpu:Grid/CompactGpuVersusCpu.*d3_k16_reseed*:Grid/CompactGpuVersusCpu.*d1_k5*:Grid/CompactGpuVersusCpu.*d9_k20*:CudaEngine.AssignReplaysEveryIterationLikeTheCpu:CudaEngine.SnapshotAtGivesBackEveryIterationLikeTheCpu:CudaCounts.AssignReplaysTheCompactKernelsLabels:Levels/PixelsGpuVersusCpu.*d1_k7*:CudaPixels.CentroidsSpreadAcrossThePrincipalAxis:Kernels/StreamedEqualsInMemory.*counts_d2*:Grid/CompactGpuVersusCpu.*d12_k100*'
  # SANITIZE_FILTER replaces the subset (say, the tests of the kernels a change touched).
  filter=${SANITIZE_FILTER:-$filter}
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    echo "== compute-sanitizer --tool $tool =="
    timeout ${SANITIZE_TIMEOUT:-280} compute-sanitizer --tool "$tool" --error-exitcode 9 "$B/gpu_tests" --gtest_brief=1 \
      --gtest_filter="$filter" >"$OUT/sanitize-$tool.log" 2>&1
    echo "exit $? ($(grep -c '^\[       OK \]\|PASSED' "$OUT/sanitize-$tool.log") lines of passes)"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/sanitize-$tool.log" | tail -5
  done
}
run_photo() {
  # A real photograph against PyTorch's Lloyd on its pixels (scripts/device/photo_vs_pytorch.py).
  for photo in "$B"/photos/*.jpg; do
    echo "== photo: $(basename "$photo") =="
    timeout 300 python3 "$B/photo_vs_pytorch.py" "$photo" --bench "$B/kmeans-bench" 2>&1 | tail -40
  done
}
run_sass() {
  # Which atomics the assignment kernels really use (a 64-bit shared atomic would be a CAS loop).
  cuobjdump -sass "$B/gpu_tests" > /tmp/sass.txt 2>/dev/null
  echo "== SASS: atomics in assignKernel<3, uint8> =="
  awk '/Function : .*assignKernelILi3Eh/{f=1} f&&/Function : /&&!/assignKernelILi3Eh/{f=0} f' /tmp/sass.txt \
    | grep -oE '(ATOMS|ATOMG|RED|ATOM|REDUX)[.A-Z0-9]*' | sort | uniq -c
}
run_profile() {
  # Nsight Compute on the assignment kernel of a few cases (first launches after warm-up).
  for c in ${PROFILE_CASES:-"k=16" "d=1," "d=64"}; do
    echo "== ncu: $c =="
    timeout 200 ncu --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:${KERNEL:-assignKernel} -s 5 -c 1 \
      "$B/kmeans-bench" --only "$c" --iterations 3 --warmup 3 --no-cpu > "$OUT/ncu-${c//[^a-z0-9]/}.txt" 2>&1
    grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Grid Size|Block Size|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Dynamic Shared|Warp Cycles Per Issued|Stall|Issue Slot|Executed Ipc" "$OUT/ncu-${c//[^a-z0-9]/}.txt" | head -24
  done
}
run_hotspots() {
  # Per-SASS-instruction stall samples of the assignment kernel for one case ($2).
  local c=${2:-k=16}
  timeout 300 ncu --set full --import-source yes -k regex:${KERNEL:-assignKernel} -s 5 -c 1 -o /tmp/prof \
    "$B/kmeans-bench" --only "$c" --iterations 3 --warmup 3 --no-cpu > "$OUT/ncu-run.txt" 2>&1
  ncu -i /tmp/prof.ncu-rep --page source --csv --print-source sass > "$OUT/hot-sass.csv" 2>&1
  ncu -i /tmp/prof.ncu-rep --page details --print-details all > "$OUT/hot-details.txt" 2>&1
  ls -la "$OUT"
  grep -E "Executed Instructions|Duration|Issued Warp|Achieved Occupancy" "$OUT/hot-details.txt" | head
}
case "$mode" in
  tests) run_tests ;;
  bench) run_bench ;;
  sanitize) run_sanitize ;;
  faults) run_faults ;;
  profile) run_profile ;;
  photo) run_photo ;;
  hotspots) run_hotspots "$@" ;;
  all) run_tests; run_bench; run_sass ;;
  final) run_tests; run_bench; run_sanitize ;;
esac

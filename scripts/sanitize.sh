#!/usr/bin/env bash
# The suite under sanitizers, CPU only (CI runs both after scripts/test.sh):
#   scripts/sanitize.sh asan   # every test in an ASan + UBSan build (preset debug, build-debug/),
#                              # halting on the first error; LeakSanitizer suppressions for system
#                              # libraries in tests/sanitizers/lsan.supp. Built with Clang: a third
#                              # faster to build here than GCC, and a second compiler's warnings
#                              # and sanitizer checks beside the main build's GCC
#   scripts/sanitize.sh tsan   # ThreadSanitizer (preset tsan, Clang: half GCC's build and test
#                              # time here; build-tsan/): the CPU backend's
#                              # thread pool and interrupt (engine tests), the frame mailbox,
#                              # label pool and stop request (session tests); why the Qt-driven
#                              # session tests are not in it: tests/sanitizers/tsan.supp
# Extra arguments go to ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
kind=${1:?usage: scripts/sanitize.sh asan|tsan [ctest arguments]}
shift
"$root/scripts/install-deps.sh"
jobs=$(nproc 2>/dev/null || echo 2)
export QT_QPA_PLATFORM=offscreen
case "$kind" in
  asan)
    [ -f build-debug/CMakeCache.txt ] || cmake --preset debug
    cmake --build build-debug -j "$jobs"
    export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
    # Not the benchmark's smoke test (label bench): 45 s under ASan of engine code the other
    # tests run.
    ctest --test-dir build-debug --output-on-failure -j "$jobs" -LE bench "$@"
    ;;
  tsan)
    [ -f build-tsan/CMakeCache.txt ] || cmake --preset tsan
    cmake --build build-tsan -j "$jobs" --target engine_tests session_tests
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp"
    # DistributedRun.AnyNumberOfRanks… repeats the thread collective of the other DistributedRun
    # tests 24 times over (3 seedings × 1–4 ranks × 2 shares): 170 s under TSan for nothing new.
    # The sorted-search and group-bound comparisons run whole trajectories over dozens of shapes
    # through the same thread pool as every other engine test (173 and 167 s under TSan, CI of
    # 2026-11-29): their subject is the search's arithmetic, which the plain and ASan stages run.
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L engine \
      -E '^(DistributedRun\.AnyNumberOfRanksGivesTheOneProcessRunBitForBit|CpuGroupBounds\.GiveTheFullSearchsRunOnCountedRowsAndPrune|CpuSortedSearch\.GivesTheFullSearchsRunOnCountedRowsWithExactTies)$' \
      "$@"
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" \
      -R '^(FrameMailbox|LabelPool|StopRequest)\.' "$@"
    ;;
  *)
    echo "scripts/sanitize.sh: unknown kind '$kind' (asan or tsan)" >&2
    exit 1
    ;;
esac

#!/usr/bin/env bash
# kmeans-cli under mpirun with CPU ranks (docs/engine.md, "Several processes"):
#  1. 1, 2, 3 and 4 ranks, uneven shares, give byte-identical labels and centroids files to one
#     process (2 M × 16 blobs, k = 64; .npy, and the classic binary format); even shares and
#     resuming in one process are tested in tests/engine/test_distributed.cpp and
#     tests/app/test_cli_checkpoint.cpp;
#  2. a rank killed mid-run (KMS_TEST_KILL_RANK) ends the whole job within seconds, leaving the
#     checkpoint intact; resumed with 2 ranks, the run gives the same files again;
#  3. a text file (header, ids, comments) read by 2–4 ranks, each from its slice of the bytes, gives
#     the same files again, and a bad value in one rank's rows is named by its line in the file;
#  4. --init kmeans|| on 3 ranks gives one process's files;
#  5. bad input: more ranks than blocks of rows, a checkpoint of another data set, ranks started
#     with different options: one clear message and every rank exits.
#   tests/distributed/ranks.sh path/to/kmeans-cli [mpirun]
set -euo pipefail
cli=$1
mpirun=${2:-mpirun}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CI containers run as root; Open MPI refuses that unless told. Two cores, four ranks: oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*" >&2; exit 1; }

python=$(command -v /usr/bin/python3 || command -v python3)
"$python" - "$work" <<'PY'
import sys, numpy as np
work = sys.argv[1]
rng = np.random.default_rng(3)
n, d, groups = 2_000_000, 16, 64
centres = rng.uniform(-10, 10, (groups, d)).astype(np.float32)
x = (centres[rng.integers(0, groups, n)] + rng.normal(0, 1.5, (n, d))).astype(np.float32)
np.save(f"{work}/blobs.npy", x)  # 19 iterations from seed 5 at k = 64
with open(f"{work}/blobs.bin", "wb") as f:  # classic binary: int32 N, int32 d, float32 values
    np.array([n, d], dtype="<i4").tofile(f)
    x.astype("<f4").tofile(f)
np.save(f"{work}/small.npy", x[:20000])   # three blocks of 8,192 rows
PY

common=(-k 64 --seed 5 --backend cpu -q)
"$cli" "$work/blobs.npy" "${common[@]}" --out-labels "$work/one-labels.csv" \
  --out-centroids "$work/one-centroids.csv"
same() {  # same LABEL CENTROIDS WHAT
  cmp -s "$1" "$work/one-labels.csv" || fail "$3: labels differ from one process"
  cmp -s "$2" "$work/one-centroids.csv" || fail "$3: centroids differ from one process"
  echo "ok: $3: labels and centroids byte-identical to one process"
}

# One run of each rank count (each about 15 s on two cores), uneven shares; the classic binary
# format with two ranks.
for run in "1 npy" "2 bin 1,2" "3 npy 1,3,2" "4 npy 3,1,1,2"; do
  set -- $run
  shares=()
  [ $# -ge 3 ] && shares=(--rank-shares "$3")
  "$mpirun" -np "$1" "$cli" "$work/blobs.$2" "${common[@]}" "${shares[@]}" \
    --out-labels "$work/labels.csv" --out-centroids "$work/centroids.csv"
  same "$work/labels.csv" "$work/centroids.csv" "$1 ranks, .$2, shares ${3:-even}"
done

# k-means|| seeding: each row's draw is keyed by its global index, so 3 ranks (a short last
# share) seed and run as one process does.
parallel=(-k 64 --seed 9 --backend cpu -q --init kmeans\|\|)
"$cli" "$work/small.npy" "${parallel[@]}" --out-labels "$work/par-one-labels.csv" \
  --out-centroids "$work/par-one-centroids.csv"
"$mpirun" -np 3 "$cli" "$work/small.npy" "${parallel[@]}" --out-labels "$work/par-labels.csv" \
  --out-centroids "$work/par-centroids.csv"
cmp -s "$work/par-labels.csv" "$work/par-one-labels.csv" || fail "kmeans||: labels differ"
cmp -s "$work/par-centroids.csv" "$work/par-one-centroids.csv" || fail "kmeans||: centroids differ"
echo "ok: --init kmeans|| on 3 ranks: labels and centroids byte-identical to one process"

# A text file: each rank scans the lines that start in its slice of the bytes, and the ranks
# find their rows together (a header, an id column, comments; 40,000 rows make 5 blocks).
"$python" - "$work" <<'PY'
import sys, numpy as np
work = sys.argv[1]
x = np.load(f"{work}/blobs.npy", mmap_mode="r")[:40000]
with open(f"{work}/text.csv", "w") as f:
    f.write("# blobs for the text checks\nid," + ",".join(f"c{j}" for j in range(16)) + "\n")
    for i, row in enumerate(x):
        if i % 5000 == 0:
            f.write("\n# another thousand or so\n")
        f.write(f"{i + 1}," + ",".join(repr(float(v)) for v in row) + "\n")
with open(f"{work}/text.csv") as f:
    lines = f.readlines()
lines[30001] = lines[30001].replace(",", ",oops", 1)  # in the second share of three
with open(f"{work}/bad.csv", "w") as f:
    f.writelines(lines)
PY
text=(-k 16 --seed 5 --backend cpu -q)
"$cli" "$work/text.csv" "${text[@]}" --out-labels "$work/text-one-labels.csv" \
  --out-centroids "$work/text-one-centroids.csv"
for run in "2" "3 1,3,2" "4 3,1,1,2"; do
  set -- $run
  shares=()
  [ $# -ge 2 ] && shares=(--rank-shares "$2")
  "$mpirun" -np "$1" "$cli" "$work/text.csv" "${text[@]}" "${shares[@]}" \
    --out-labels "$work/text-labels.csv" --out-centroids "$work/text-centroids.csv"
  cmp -s "$work/text-labels.csv" "$work/text-one-labels.csv" ||
    fail "text, $1 ranks: labels differ from one process"
  cmp -s "$work/text-centroids.csv" "$work/text-one-centroids.csv" ||
    fail "text, $1 ranks: centroids differ from one process"
  echo "ok: $1 ranks, .csv, shares ${2:-even}: labels and centroids byte-identical to one process"
done

# A rank killed at iteration 8 of 19; checkpoints every 3 iterations.
start=$(date +%s)
if KMS_TEST_KILL_RANK=1:8 "$mpirun" -np 3 "$cli" "$work/blobs.npy" "${common[@]}" \
     --checkpoint "$work/run.ckpt" --checkpoint-every 3 --out-labels "$work/killed.csv" \
     >"$work/killed.log" 2>&1; then
  fail "the job with a killed rank exited 0"
fi
elapsed=$(( $(date +%s) - start ))
grep -q "rank 1" "$work/killed.log" || fail "no message names the killed rank: $(cat "$work/killed.log")"
[ "$elapsed" -lt 60 ] || fail "the job took ${elapsed} s to end after a rank died"
[ ! -e "$work/killed.csv" ] || fail "a killed run wrote its labels"
echo "ok: a killed rank ended the job (${elapsed} s in all, rank named)"
"$mpirun" -np 2 "$cli" "$work/blobs.npy" "${common[@]}" --resume "$work/run.ckpt" \
  --out-labels "$work/resumed-labels.csv" --out-centroids "$work/resumed-centroids.csv"
same "$work/resumed-labels.csv" "$work/resumed-centroids.csv" \
  "checkpoint of 3 ranks (after iteration 6) resumed with 2"

# A rank whose step fails while the others wait in a collective: it says so and ends the job.
start=$(date +%s)
if KMS_TEST_FAIL_RANK=1:3 timeout 120 "$mpirun" -np 3 "$cli" "$work/blobs.npy" "${common[@]}" \
     >"$work/failed.log" 2>&1; then
  fail "the job with a failing rank exited 0"
fi
elapsed=$(( $(date +%s) - start ))
grep -q "rank 1 of 3 on .*: a failure for the tests" "$work/failed.log" ||
  fail "no message names the failing rank: $(cat "$work/failed.log")"
[ "$elapsed" -lt 60 ] || fail "the job took ${elapsed} s to end after a rank failed"
echo "ok: a rank that failed mid-run ended the job (${elapsed} s in all, rank named)"

expect_error() {  # expect_error PATTERN COMMAND...: fails unless the command fails saying PATTERN
  local pattern=$1; shift
  if "$@" >"$work/out.log" 2>&1; then fail "succeeded: $*"; fi
  grep -q -- "$pattern" "$work/out.log" || fail "no '$pattern' in: $(cat "$work/out.log")"
  [ "$(grep -c "kmeans-cli" "$work/out.log")" -eq 1 ] || fail "not one message: $(cat "$work/out.log")"
  echo "ok: $pattern"
}
expect_error "20,000 rows make 3 block(s) of 8,192: at most that many processes can share them, not 4" \
  "$mpirun" -np 4 "$cli" "$work/small.npy" -k 4 --backend cpu -q
bad_line=$({ "$cli" "$work/bad.csv" -k 4 --backend cpu -q 2>&1 || true; } | grep -o "line [0-9]*, column 2: 'oops[^']*' is not a number") ||
  fail "one process did not name the bad value"
expect_error "$bad_line" "$mpirun" -np 3 "$cli" "$work/bad.csv" -k 4 --backend cpu -q
expect_error "saved for another data set" \
  "$mpirun" -np 2 "$cli" "$work/small.npy" -k 64 --seed 5 --backend cpu -q --resume "$work/run.ckpt"
expect_error "started with different options" \
  "$mpirun" -np 1 "$cli" "$work/blobs.npy" -k 64 -q : -np 1 "$cli" "$work/blobs.npy" -k 63 -q
expect_error "CUDA backend unavailable" \
  "$mpirun" -np 2 "$cli" "$work/small.npy" -k 4 --backend cuda -q
echo "all distributed checks passed"

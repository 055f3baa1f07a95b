#!/usr/bin/python3
"""kmeans-cli's CPU backend against scikit-learn's Lloyd on the same data and the same start, on
this machine (Debian's python3-sklearn; run with /usr/bin/python3).

  /usr/bin/python3 scripts/cpu_vs_sklearn.py [--cli build/app/kmeans-cli] [--iterations 8]
      [--shape N D K] ...

For each shape: a Gaussian mixture of 2k groups (seed 1), the first k rows as the start; both
run `--iterations` Lloyd iterations from it with tolerance 0 (scikit-learn: n_init=1,
algorithm="lloyd", tol=0, every core through OpenMP; kmeans-cli: --backend cpu, every core).
Prints the median ms per iteration of each (kmeans-cli: from its report's per-iteration times;
scikit-learn: wall time of the fit over its iterations, which includes its set-up) and how many
final labels differ: scikit-learn ranks by float GEMM distances and may mis-rank near ties, which
the engine resolves exactly, so after a few iterations the two trajectories may part slightly.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
from sklearn.cluster import KMeans


def mixture(n, d, groups, seed=1):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10.0, 10.0, size=(groups, d)).astype(np.float32)
    pick = rng.integers(0, groups, size=n)
    return (centres[pick] + rng.normal(0.0, 1.0, size=(n, d))).astype(np.float32)


def run_cli(cli, points, start, iterations, folder):
    data, init = os.path.join(folder, "x.npy"), os.path.join(folder, "start.csv")
    labels, report = os.path.join(folder, "labels.csv"), os.path.join(folder, "report.json")
    np.save(data, points)
    np.savetxt(init, start, delimiter=",", fmt="%.9g")
    subprocess.run([cli, data, "--backend", "cpu", "--init-centroids", init, "--max-iter",
                    str(iterations), "--tol", "0", "--out-labels", labels, "--report", report,
                    "-q"], check=True)
    with open(report, encoding="utf-8") as f:
        ms = [it["ms"]["compute"] for it in json.load(f)["iterations"]]
    got = np.loadtxt(labels, delimiter=",", skiprows=1, usecols=-1, dtype=np.int64)
    return statistics.median(ms), got, len(ms)


def run_sklearn(points, start, iterations):
    model = KMeans(n_clusters=len(start), init=start, n_init=1, max_iter=iterations, tol=0.0,
                   algorithm="lloyd")
    t0 = time.perf_counter()
    model.fit(points)
    ms = (time.perf_counter() - t0) * 1000.0 / max(model.n_iter_, 1)
    return ms, model.labels_, model.n_iter_


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/app/kmeans-cli")
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--shape", type=int, nargs=3, action="append", metavar=("N", "D", "K"))
    args = ap.parse_args()
    shapes = args.shape or [[100000, 128, 1024], [20000, 768, 1024]]
    print(f"{os.cpu_count()} hardware threads; scikit-learn {__import__('sklearn').__version__}")
    print("| n × d, k | kmeans-cli CPU ms/iter | scikit-learn ms/iter | ratio | labels differing |")
    print("|---|---|---|---|---|")
    for n, d, k in shapes:
        points = mixture(n, d, 2 * k)
        start = points[:k].copy()
        with tempfile.TemporaryDirectory() as folder:
            ours, ours_labels, ran = run_cli(args.cli, points, start, args.iterations, folder)
        theirs, their_labels, their_ran = run_sklearn(points, start, args.iterations)
        differ = int((ours_labels != their_labels).sum())
        same = f"{differ:,} of {n:,}" + ("" if ran == their_ran else f" ({ran} / {their_ran} iterations)")
        print(f"| {n:,} × {d}, k = {k:,} | {ours:.1f} | {theirs:.1f} | {theirs / ours:.2f}× | "
              f"{same} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Medians of kmeans-bench's ms/iter per case, old build against new, from compare-run.sh's
bench-all.md (sections "## bench-old-N" and "## bench-new-N"). Prints one line per case: the
old and new medians over the rounds, the change, and each round's figures.
  python3 scripts/device/compare_bench.py bench-all.md"""
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(lambda: defaultdict(list))  # lib -> case -> [ms]
    lib = None
    for line in open(path, encoding="utf-8"):
        if line.startswith("## bench-"):
            lib = line.split("-")[1]
            continue
        if not line.startswith("| ") or "---" in line or line.startswith("| case"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        try:
            runs[lib][cells[0]].append(float(cells[2]))
        except (IndexError, ValueError):
            pass
    worst = 0.0
    for case, old in runs["old"].items():
        new = runs["new"].get(case)
        if not new:
            continue
        a, b = statistics.median(old), statistics.median(new)
        change = 100.0 * (b / a - 1.0)
        worst = max(worst, abs(change))
        print(f"{case[:68]:68s} {a:9.4f} {b:9.4f} {change:+6.1f}%   old {old} new {new}")
    print(f"largest change of the medians: {worst:.1f}%")


if __name__ == "__main__":
    main(sys.argv[1])

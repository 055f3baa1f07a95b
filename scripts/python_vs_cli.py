# Issue 36's target: kmeans_studio.KMeans.fit from Python against kmeans-cli's own run on the same
# data, settings and seed (1 M × 2, k = 8 by default), alternating, medians of ROUNDS each.
#   PYTHONPATH=build/python /usr/bin/python3 scripts/python_vs_cli.py build/app/kmeans-cli [ROUNDS] [BACKEND]
# kmeans-cli's time is its "data to the engine", "starts" and "result and its measures" phases
# (the data's upload, the run and the labels, without reading the file, starting the engine or
# writing outputs); Python's is the whole fit() call, after one fit that starts the backend (on a
# GPU the process's CUDA context, which kmeans-cli starts while it reads the file).
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import kmeans_studio

cli = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
backend = sys.argv[3] if len(sys.argv) > 3 else "cpu"
rng = np.random.default_rng(5)
centres = rng.uniform(0, 10, (8, 2))
X = (centres[rng.integers(0, 8, 1_000_000)] + rng.normal(0, 0.6, (1_000_000, 2))).astype(np.float32)
path = tempfile.mkdtemp() + "/x.npy"
np.save(path, X)
cli_ms, py_ms = [], []
warm = kmeans_studio.KMeans(8, random_state=1, backend=backend).fit(X)
for _ in range(rounds):
    out = subprocess.run([cli, path, "-k", "8", "--seed", "1", "--backend", backend],
                         capture_output=True, text=True, check=True).stdout
    phases = dict((name.strip(), float(ms)) for name, ms in
                  re.findall(r"([a-z ()]+?) ([0-9.]+) ms", out.split("phases:")[1].splitlines()[0]))
    cli_ms.append(phases.get("data to the engine", 0.0) + phases["starts"] +
                  phases["result and its measures"])
    t = time.perf_counter()
    kmeans_studio.KMeans(8, random_state=1, backend=backend).fit(X)
    py_ms.append((time.perf_counter() - t) * 1e3)
c, p = statistics.median(cli_ms), statistics.median(py_ms)
print(f"kmeans-cli {c:.1f} ms, Python fit {p:.1f} ms (medians of {rounds}, backend {warm.backend_}): "
      f"Python/cli = {p / c:.3f}")

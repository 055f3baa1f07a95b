"""Runs as traces (docs/trace-format.md): what `kmeans-cli --compare-trace` and the window read."""

import json
import os

import numpy as np

FORMAT = "kmeans-studio trace"
VERSION = 1


def write_trace(folder, centroids, labels=None, inertia=None, changed=None, source=""):
    """Writes a trace (format version 1) into ``folder`` (created if needed).

    centroids : array or list of T + 1 arrays (k, d) — the start, then the centroids after each
        iteration, in the data's own units.
    labels : None, or T arrays (n,) — the labels iteration t assigned (with ``centroids[t - 1]``).
    inertia, changed : None, or T values — each iteration's inertia and rows that changed.
    source : what made the run ("my_kmeans 0.3"), shown by the comparison.
    """
    c = np.asarray(centroids, dtype=np.float32)
    if c.ndim != 3 or c.shape[0] < 1:
        raise ValueError(f"centroids must be T + 1 arrays of (k, d), got shape {c.shape}")
    iterations = c.shape[0] - 1
    # Every array is checked before anything is written, so a bad call leaves the folder as it
    # was; trace.json, written last, names only the arrays of this trace.
    arrays = {"centroids": c}
    n = 0
    for name, values, dtype in (("labels", labels, np.int32), ("inertia", inertia, np.float64),
                                ("changed", changed, np.int64)):
        if values is None:
            continue
        a = np.asarray(values, dtype=dtype)
        if a.ndim < 1 or a.shape[0] != iterations:
            raise ValueError(f"{name} has {a.shape[0] if a.ndim else 0} iterations; the centroids "
                             f"have {iterations}")
        if name == "labels":
            if a.ndim != 2:
                raise ValueError(f"labels must be T arrays of (n,), got shape {a.shape}")
            if a.size and (a.min() < 0 or a.max() >= c.shape[1]):
                raise ValueError(f"labels must lie in [0, {c.shape[1]})")
            n = a.shape[1]
        arrays[name] = a
    os.makedirs(folder, exist_ok=True)
    files = {}
    for name, a in arrays.items():
        np.save(os.path.join(folder, name + ".npy"), a)
        files[name] = name + ".npy"
    header = {"format": FORMAT, "version": VERSION, "k": int(c.shape[1]), "d": int(c.shape[2]),
              "n": int(n), "iterations": int(iterations), "source": source, "files": files}
    with open(os.path.join(folder, "trace.json"), "w") as f:
        json.dump(header, f, indent=2)
    return folder


class Trace:
    """A fitted run's trace: the best start's centroids at every iteration.

    Attributes
    ----------
    centroids : ndarray (T + 1, k, d), float32 — ``[0]`` the start, ``[t]`` after iteration t
    labels : ndarray (T, n), int32, or None — the labels iteration t assigned
        (``KMeans(record_trace="labels")``)
    inertia : ndarray (T,), float64
    changed : ndarray (T,), int64 — rows whose label changed in iteration t
    source : str — the package, version and backend that ran
    """

    def __init__(self, centroids, labels, inertia, changed, source):
        self.centroids = centroids
        self.labels = labels
        self.inertia = inertia
        self.changed = changed
        self.source = source

    @property
    def n_iter(self):
        return self.centroids.shape[0] - 1

    def save(self, folder):
        """Writes the trace format into ``folder``: ``kmeans-cli DATA --compare-trace folder``
        compares it with exact Lloyd; kmeans-studio opens it on the same data."""
        return write_trace(folder, self.centroids, self.labels, self.inertia, self.changed,
                           self.source)

    def __repr__(self):
        k, d = self.centroids.shape[1:]
        return (f"Trace({self.n_iter} iterations, k={k}, d={d}"
                f"{', with labels' if self.labels is not None else ''})")

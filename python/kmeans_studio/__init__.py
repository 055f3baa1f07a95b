"""KMeans Studio from Python: exact Lloyd k-means with scikit-learn's estimator API.

The engine is KMeans Studio's own (the one kmeans-cli and the window run): labels identical on the
CPU and on CUDA GPUs, centroids bit for bit, the best of several starts, greedy k-means++ seeding.
The same data, settings and seed give the same labels and centroids as
``kmeans-cli FILE -k K --seed S --restarts N``.

    >>> import numpy as np, kmeans_studio
    >>> X = np.random.default_rng(0).normal(size=(10_000, 2)).astype(np.float32)
    >>> model = kmeans_studio.KMeans(n_clusters=8, random_state=1).fit(X)
    >>> model.labels_[:5], model.cluster_centers_.shape, model.history_[-1]["changed"]
"""
import numbers
import os
import shutil
import subprocess
import tempfile

import numpy as np

from . import _engine
from ._trace import Trace, write_trace

try:  # scikit-learn's base classes and checks when it is installed (the estimator API either way)
    from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
    from sklearn.utils import check_random_state
    from sklearn.utils.validation import _check_sample_weight, check_is_fitted

    try:
        from sklearn.utils.validation import validate_data as _validate_data
    except ImportError:  # scikit-learn before 1.6

        def _validate_data(estimator, X, reset=True, **kwargs):
            return estimator._validate_data(X, reset=reset, **kwargs)

except ImportError:  # pragma: no cover - exercised only without scikit-learn
    from ._sklearn_free import (  # noqa: F401
        BaseEstimator,
        ClusterMixin,
        TransformerMixin,
        _check_sample_weight,
        _validate_data,
        check_is_fitted,
        check_random_state,
    )

__all__ = ["KMeans", "Trace", "quantize", "show", "write_trace"]
__version__ = "0.1.0"

_SPACES = ("srgb", "linear", "lab", "oklab")
_INITS = ("greedy-k-means++", "k-means++", "k-means||", "random")


class KMeans(ClusterMixin, TransformerMixin, BaseEstimator):
    """Exact k-means (Lloyd's algorithm) on KMeans Studio's engine.

    Parameters
    ----------
    n_clusters : int, default 8
        Number of clusters, 1 to 65,535.
    init : {"greedy-k-means++", "k-means++", "k-means||", "random"} or array of shape (n_clusters, n_features)
        How each start chooses its first centroids. Greedy k-means++ (the default, as in
        scikit-learn) draws 2 + ⌊ln k⌋ candidates per centroid and keeps the best; k-means||
        samples about 2k rows in each of 5 rounds and reduces them to k (for many millions of
        rows).
    n_init : int, default 1
        Starts (seeds S, S + 1, …); the lowest inertia wins, ties to the earlier start. On a GPU
        several run at once.
    max_iter : int, default 300
        Most Lloyd iterations of a start.
    tol : float, default 1e-4
        A start has converged after an iteration in which no point changed cluster, fewer than
        this share of the points did, or the largest centroid move fell below ``tol`` times the
        data's largest per-feature range.
    random_state : int, RandomState or None
        The seed S. None draws one from NumPy's global generator.
    empty_clusters : {"reseed", "keep"}, default "reseed"
        A cluster left empty jumps to the farthest point, or keeps its centroid.
    backend : {"auto", "cuda", "cpu"}, default "auto"
        "auto" uses a CUDA GPU when there is one. Every backend gives the same result.
    devices : str or None
        GPUs for one run: "0,1" or "all" (rows sharded, sums all-reduced, the same result).
    n_threads : int, default 0
        CPU backend threads (0: all).
    colour_space : {None, "srgb", "linear", "lab", "oklab"}, default None
        None: the rows as given. Otherwise the rows are colours — three sRGB values in [0, 1] — and
        are clustered in that space (as ``kmeans-cli --colour-space``): ``cluster_centers_`` is
        given back in sRGB (clamped to [0, 1]); ``transform`` and ``score`` measure in the
        clustering space.
    dedupe : bool, default True
        Rows that repeat are iterated on once, with their count: the same labels and centroids
        as clustering every row (each start is still seeded on the rows as given, since seeding
        draws rows), in less time. Done when a sample of the rows shows repeats and no
        ``sample_weight`` is given.
    record_trace : {False, True, "labels"}, default False
        Keep the best start's centroids at every iteration in ``trace_`` (with "labels" also every
        iteration's labels). With n_init > 1 the best start is run once more to record it.

    Attributes
    ----------
    cluster_centers_ : ndarray (n_clusters, n_features), float32
    labels_ : ndarray (n_samples,), int32 — every row's nearest final centroid
    inertia_ : float — Σ weight · squared distance to the assigned centroid
    n_iter_ : int — iterations of the best start
    n_features_in_ : int
    history_ : list of dict — per iteration of the best start: inertia, changed, max_shift,
        empty_clusters, ms
    starts_ : list of dict — every start's seed, inertia, iterations and whether it converged
    backend_ : str — "cuda" or "cpu", what ran
    trace_ : Trace or None — with ``record_trace``: the best start's run in the trace format
        (``trace_.save(folder)``; ``kmeans-cli DATA --compare-trace folder`` replays it)
    """

    def __init__(
        self,
        n_clusters=8,
        *,
        init="greedy-k-means++",
        n_init=1,
        max_iter=300,
        tol=1e-4,
        random_state=None,
        empty_clusters="reseed",
        backend="auto",
        devices=None,
        n_threads=0,
        colour_space=None,
        dedupe=True,
        record_trace=False,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.empty_clusters = empty_clusters
        self.backend = backend
        self.devices = devices
        self.n_threads = n_threads
        self.colour_space = colour_space
        self.dedupe = dedupe
        self.record_trace = record_trace

    def _more_tags(self):
        # As scikit-learn's own KMeans: zero weights leave rows in the data's bounding box (the
        # engine's frame) and in the row order the seeding draws from, so the starts differ.
        return {"_xfail_checks": {"check_sample_weights_invariance":
                                  "zero sample_weight is not equivalent to removing samples"}}

    # -- helpers -----------------------------------------------------------------------------
    def _rows(self, X, reset):
        X = _validate_data(self, X, reset=reset, dtype=[np.float32, np.float64], order="C")
        # float32 C-contiguous arrays reach the engine as they are; others are converted once.
        return np.ascontiguousarray(X, dtype=np.float32)

    def _in_space(self, X):
        """X as the engine clusters it: converted from sRGB when colour_space names a space."""
        if self.colour_space in (None, "srgb"):
            return X
        if self.colour_space not in _SPACES:
            raise ValueError(f"colour_space must be None or one of {_SPACES}, not {self.colour_space!r}")
        if X.shape[1] != 3:
            raise ValueError(f"colour_space={self.colour_space!r} takes colours: 3 features "
                             f"(sRGB in [0, 1]), not {X.shape[1]}")
        return _engine.colours_from_srgb(X, self.colour_space)

    def _seed(self):
        if isinstance(self.random_state, numbers.Integral):
            return int(self.random_state) % (1 << 64)
        return int(check_random_state(self.random_state).randint(0, np.iinfo(np.int32).max))

    def _settings(self):
        for name, value, low in (("n_clusters", self.n_clusters, 1), ("n_init", self.n_init, 1),
                                 ("max_iter", self.max_iter, 1)):
            if not isinstance(value, numbers.Integral) or value < low:
                raise ValueError(f"{name} must be an integer of at least {low}, got {value!r}")
        if self.record_trace not in (False, True, "labels"):
            raise ValueError(f"record_trace must be False, True or 'labels', got {self.record_trace!r}")
        if self.record_trace and self.colour_space not in (None, "srgb"):
            # A trace holds centroids in the units of the rows it is compared with; a run in
            # another colour space would read as wrong updates against the sRGB rows.
            raise ValueError("record_trace records runs on the rows as given: convert the rows to "
                             f"{self.colour_space} yourself (or drop colour_space) to trace the run")
        if not isinstance(self.tol, numbers.Real) or not self.tol >= 0:
            raise ValueError(f"tol must be a number of at least 0, got {self.tol!r}")
        record = {False: "none", True: "centroids", "labels": "labels"}[self.record_trace]
        return dict(backend=self.backend, devices=self.devices or "", threads=int(self.n_threads),
                    record=record)

    # -- the estimator -----------------------------------------------------------------------
    def fit(self, X, y=None, sample_weight=None):
        """Clusters X (n_samples × n_features) from ``n_init`` starts; keeps the best."""
        settings = self._settings()
        X = self._in_space(self._rows(X, reset=True))
        n, k = X.shape[0], int(self.n_clusters)
        if n < k:
            raise ValueError(f"n_samples={n} should be >= n_clusters={k}.")
        weights = None
        if sample_weight is not None:
            weights = np.ascontiguousarray(_check_sample_weight(sample_weight, X, dtype=np.float32))
        given = None
        init = self.init
        if not isinstance(init, str):
            given = np.ascontiguousarray(np.asarray(init, dtype=np.float32))
            if given.shape != (k, X.shape[1]):
                raise ValueError(f"init has shape {given.shape}; it must be ({k}, {X.shape[1]})")
            if self.n_init != 1:
                raise ValueError("an init array gives one start: n_init must be 1")
            given = np.ascontiguousarray(self._in_space(given))
            init = "given"
        elif init not in _INITS:
            raise ValueError(f"init must be one of {_INITS} or an array, not {init!r}")
        # Repeated rows once, with their counts: the same result, in less time.
        rows, counts, inverse = X, None, None
        if self.dedupe and weights is None:
            found = _engine.distinct_rows(X, True)
            if found is not None and found[0].shape[0] >= k:
                rows, counts, inverse = found
        r = _engine.fit(rows, weights, counts, k, init.replace("k-means", "kmeans"), given,
                        int(self.n_init), int(self.max_iter), float(self.tol), self._seed(),
                        self.empty_clusters, settings["backend"], settings["devices"],
                        settings["threads"], settings["record"],
                        None if inverse is None else X)
        self._engine_centers = r["centroids"]
        self.cluster_centers_ = r["centroids"]
        if self.colour_space not in (None, "srgb"):
            self.cluster_centers_ = _engine.colours_to_srgb(r["centroids"], self.colour_space)
        self.labels_ = r["labels"] if inverse is None else r["labels"][inverse]
        self.inertia_ = float(r["inertia"])
        self.n_iter_ = int(r["n_iter"])
        self.history_ = list(r["history"])
        self.starts_ = list(r["starts"])
        self.backend_ = r["backend"]
        self._centred = r["centred_centroids"]
        self._frame = _engine.frame_of(rows)
        self.trace_ = None
        if "trace_centroids" in r:
            labels = r.get("trace_labels")
            if labels is not None and inverse is not None:
                labels = np.ascontiguousarray(labels[:, inverse])
            centroids = r["trace_centroids"]
            if self.colour_space not in (None, "srgb"):
                shape = centroids.shape
                centroids = _engine.colours_to_srgb(centroids.reshape(-1, 3), self.colour_space).reshape(shape)
            self.trace_ = Trace(centroids, labels,
                                np.array([h["inertia"] for h in self.history_], dtype=np.float64),
                                np.array([h["changed"] for h in self.history_], dtype=np.int64),
                                f"kmeans_studio {__version__} ({r['backend']}: {r['device']})")
        return self

    def predict(self, X):
        """Each row's nearest centroid (ties to the lower index). On the data of ``fit``: ``labels_``."""
        check_is_fitted(self)
        X = self._in_space(self._rows(X, reset=False))
        s = self._settings()
        return _engine.predict(X, self._engine_centers, self._centred, self._frame,
                               s["backend"], s["devices"], s["threads"])

    def transform(self, X):
        """Distances from each row to every centroid, (n_samples, n_clusters), float64."""
        check_is_fitted(self)
        X = np.asarray(self._in_space(self._rows(X, reset=False)), dtype=np.float64)
        c = self._engine_centers.astype(np.float64)
        d2 = (X * X).sum(1)[:, None] - 2.0 * X @ c.T + (c * c).sum(1)[None, :]
        return np.sqrt(np.maximum(d2, 0.0))

    def score(self, X, y=None, sample_weight=None):
        """Minus the inertia of X under the fitted centroids (higher is better)."""
        check_is_fitted(self)
        labels = self.predict(X)
        X = np.asarray(self._in_space(self._rows(X, reset=False)), dtype=np.float64)
        diff = X - self._engine_centers.astype(np.float64)[labels]
        d2 = (diff * diff).sum(1)
        if sample_weight is not None:
            d2 = d2 * _check_sample_weight(sample_weight, X, dtype=np.float64)
        return -float(d2.sum())


def quantize(image, n_colors, *, colour_space="srgb", dither="none", init="greedy-k-means++",
             n_init=1, max_iter=300, tol=1e-4, random_state=1, backend="auto", devices=None,
             n_threads=0):
    """Reduces an 8-bit RGB picture to ``n_colors`` colours, as ``kmeans-cli picture -k N``.

    The picture (H × W × 3 uint8, sRGB) is clustered as its distinct colours, each counted as
    often as it occurs — exactly the result of clustering every pixel, and the same palette,
    centroids and pixels as kmeans-cli with the same seed (``random_state``), settings,
    ``--colour-space``, ``--dither`` and ``--restarts n_init``.

    colour_space : {"srgb", "linear", "lab", "oklab"}
        The space the colours are clustered (and dithered) in: the file's own values, light
        intensities, CIELAB or Oklab (perceptual: differences closer to what the eye sees).
    dither : {"none", "fs", "ordered"}
        "none": every pixel its cluster's colour; "fs": Floyd–Steinberg error diffusion
        (serpentine, in bands, the same for any number of threads); "ordered": 8 × 8 Bayer
        thresholds between each pixel's two nearest palette colours.

    Returns ``(palette, indices, centroids)``: the palette as ``n_colors × 3`` uint8 (each centroid
    in sRGB rounded to the nearest 8-bit value), every pixel's palette index (H × W, int32, so
    that ``palette[indices]`` is the quantised picture), and the centroids as sRGB in [0, 1]
    (float32; outside the gamut clamped, as the palette).
    """
    pixels = np.asarray(image)
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] != 3:
        raise ValueError(f"image must be an H × W × 3 uint8 array, got {pixels.dtype} {pixels.shape}")
    if dither not in ("none", "fs", "ordered"):
        raise ValueError(f"dither must be 'none', 'fs' or 'ordered', not {dither!r}")
    k = int(n_colors)
    keys = ((pixels[..., 0].astype(np.uint32) << 16) | (pixels[..., 1].astype(np.uint32) << 8)
            | pixels[..., 2].astype(np.uint32)).ravel()
    distinct, index, counts = np.unique(keys, return_inverse=True, return_counts=True)
    if k < 1 or k > distinct.size:
        raise ValueError(f"n_colors = {k}: the picture has {distinct.size} distinct colours; "
                         f"choose 1 to {distinct.size}")
    rows = np.stack([(distinct >> 16) & 0xFF, (distinct >> 8) & 0xFF, distinct & 0xFF], axis=1)
    rows = np.ascontiguousarray(rows.astype(np.float32) / np.float32(255.0))
    if colour_space != "srgb":
        rows = _engine.colours_from_srgb(rows, colour_space)
    seed = int(random_state) if random_state is not None else int(np.random.randint(0, 2**31 - 1))
    r = _engine.fit(rows, None, counts.astype(np.uint32), k, init.replace("k-means", "kmeans"),
                    None, int(n_init), int(max_iter), float(tol), seed, "reseed", backend,
                    devices or "", int(n_threads))
    centroids = r["centroids"]
    if colour_space != "srgb":
        centroids = _engine.colours_to_srgb(centroids, colour_space)
    # kmeans-cli's palette: each channel rounded half away from zero, clamped to 0…255.
    scaled = (centroids * np.float32(255.0)).astype(np.float64)
    palette = np.clip(np.floor(np.abs(scaled) + 0.5) * np.sign(scaled), 0, 255).astype(np.uint8)
    if dither == "none":
        indices = r["labels"][index].reshape(pixels.shape[:2])
    else:
        indices = _engine.dither(rows, index.astype(np.uint32), pixels.shape[1], pixels.shape[0],
                                 r["centroids"], dither)
    return palette, indices, centroids


def _studio_program():
    program = os.environ.get("KMS_STUDIO") or shutil.which("kmeans-studio")
    if not program:
        raise FileNotFoundError("kmeans-studio was not found: install the kmeans-studio package, "
                                "put it on PATH or name it in KMS_STUDIO")
    return program


def show(data, model=None, *, trace=None, args=(), **popen_options):
    """Opens kmeans-studio on ``data`` without blocking: an array of points (n × d) or an 8-bit
    RGB picture (H × W × 3 uint8). With a fitted ``model`` (KMeans), the window runs the same fit
    — same settings and seed, so the same labels and centroids, bit for bit — and plays it
    iteration by iteration; otherwise it opens the data and waits.

    With ``trace`` (a ``Trace``, e.g. ``model.trace_``, or a trace folder from any program:
    docs/trace-format.md) the window compares that run with exact Lloyd on the data instead
    (File ▸ Open Trace…): where and why they part, iteration by iteration.

    The data are written to a temporary file the window reads (NumPy .npy, or PPM for pictures).
    ``args`` adds kmeans-studio options (``kmeans-studio --help``). Returns the subprocess.Popen
    of the window.
    """
    values = np.asarray(data)
    folder = tempfile.mkdtemp(prefix="kmeans-studio-")
    if values.dtype == np.uint8 and values.ndim == 3 and values.shape[2] == 3:
        path = os.path.join(folder, "picture.ppm")
        with open(path, "wb") as f:
            f.write(b"P6\n%d %d\n255\n" % (values.shape[1], values.shape[0]))
            f.write(np.ascontiguousarray(values).tobytes())
    elif values.ndim == 2:
        path = os.path.join(folder, "points.npy")
        np.save(path, np.ascontiguousarray(values, dtype=np.float32))
    else:
        raise ValueError(f"show takes points (n × d) or an H × W × 3 uint8 picture, got {values.dtype} "
                         f"{values.shape}")
    command = [_studio_program(), "--open", path]
    if model is not None:
        if isinstance(model.init, str):
            init = {"greedy-k-means++": "greedy", "k-means++": "kmeans++"}.get(model.init, model.init)
            command += ["--init", init, "--restarts", str(int(model.n_init))]
        seed = model.random_state if isinstance(model.random_state, numbers.Integral) else 1
        command += ["--k", str(int(model.n_clusters)), "--seed", str(int(seed)),
                    "--max-iterations", str(int(model.max_iter)), "--tolerance", repr(float(model.tol)),
                    "--backend", model.backend, "--run"]
    if trace is not None:
        if isinstance(trace, Trace):
            trace = trace.save(os.path.join(folder, "trace"))
        command = [c for c in command if c != "--run"] + ["--trace", os.fspath(trace)]
    command += list(args)
    return subprocess.Popen(command, **popen_options)

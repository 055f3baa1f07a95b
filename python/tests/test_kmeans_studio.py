"""kmeans_studio against kmeans-cli, scikit-learn's estimator checks, copies, cancellation.

Run by CTest (python_package) with the built package on PYTHONPATH and KMS_CLI naming kmeans-cli.
"""
import os
import signal
import subprocess
import threading
import time
import unittest

import numpy as np
import pytest

import kmeans_studio
from kmeans_studio import KMeans, _engine


def blobs(n, d, groups, seed):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.0, 10.0, (groups, d))
    return (centres[rng.integers(0, groups, n)] + rng.normal(0.0, 0.6, (n, d))).astype(np.float32)


def read_cli_outputs(labels_csv, centroids_csv):
    labels = np.loadtxt(labels_csv, delimiter=",", skiprows=1, dtype=np.int64)[:, 1]
    with open(centroids_csv) as f:
        header = f.readline()
        rows = [line.strip().split(",") for line in f if line.strip()]
    assert header.startswith("cluster")
    centroids = np.array([[np.float32(v) for v in row[1:-1]] for row in rows], dtype=np.float32)
    return labels, centroids


@pytest.mark.parametrize("n_init, init", [(1, "greedy-k-means++"), (3, "k-means++"),
                                          (2, "k-means||"), (2, "random")])
def test_equals_kmeans_cli_bit_for_bit(tmp_path, n_init, init):
    cli = os.environ.get("KMS_CLI")
    if not cli:
        pytest.skip("KMS_CLI (kmeans-cli) not given")
    X = blobs(30000, 5, 12, 4)
    np.save(tmp_path / "x.npy", X)
    cli_init = init.replace("k-means", "kmeans")
    subprocess.run([cli, str(tmp_path / "x.npy"), "-k", "12", "--seed", "7", "--restarts",
                    str(n_init), "--init", cli_init, "--backend", "cpu", "--out-labels",
                    str(tmp_path / "l.csv"), "--out-centroids", str(tmp_path / "c.csv"), "-q"],
                   check=True)
    labels, centroids = read_cli_outputs(tmp_path / "l.csv", tmp_path / "c.csv")
    model = KMeans(12, init=init, n_init=n_init, random_state=7, backend="cpu").fit(X)
    assert np.array_equal(model.labels_, labels)
    assert model.cluster_centers_.dtype == np.float32
    assert np.array_equal(model.cluster_centers_.view(np.uint32), centroids.view(np.uint32))
    assert len(model.starts_) == n_init
    assert model.n_iter_ == len(model.history_)
    assert model.inertia_ == pytest.approx(model.history_[-1]["inertia"])


def test_predict_transform_score():
    X = blobs(5000, 3, 6, 1)
    model = KMeans(6, random_state=0, backend="cpu").fit(X)
    assert np.array_equal(model.predict(X), model.labels_)
    assert np.array_equal(model.fit_predict(X), model.labels_)
    distances = model.transform(X)
    assert distances.shape == (5000, 6) and distances.dtype == np.float64
    assert np.array_equal(distances.argmin(1), model.labels_)
    assert model.score(X) == pytest.approx(-model.inertia_, rel=1e-5)
    # New data: each row's nearest centroid.
    Y = blobs(200, 3, 6, 2)
    assert np.array_equal(model.predict(Y), model.transform(Y).argmin(1))


def test_float64_is_converted_once_to_the_same_result():
    X = blobs(4000, 4, 5, 3)
    a = KMeans(5, random_state=2, backend="cpu").fit(X)
    b = KMeans(5, random_state=2, backend="cpu").fit(X.astype(np.float64))
    assert np.array_equal(a.labels_, b.labels_)
    assert np.array_equal(a.cluster_centers_, b.cluster_centers_)


def test_a_million_rows_without_a_copy():
    X = blobs(1_000_000, 2, 8, 5)
    assert _engine.data_address(X) == X.__array_interface__["data"][0]
    model = KMeans(8, random_state=1).fit(X)
    assert model.labels_.shape == (1_000_000,)
    assert model.n_features_in_ == 2


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=4"):
        KMeans(4).fit(np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError):
        KMeans(2).fit(np.array([[0.0, np.nan], [1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(ValueError, match="backend"):
        KMeans(2, backend="tpu").fit(np.arange(8, dtype=np.float32).reshape(4, 2))
    with pytest.raises(ValueError, match="init has shape"):
        KMeans(2, init=np.zeros((3, 2))).fit(np.arange(8, dtype=np.float32).reshape(4, 2))


def test_given_centroids():
    X = blobs(3000, 2, 3, 9)
    start = X[:3].copy()
    model = KMeans(3, init=start, backend="cpu").fit(X)
    assert model.cluster_centers_.shape == (3, 2)


def test_ctrl_c_stops_a_long_fit():
    X = blobs(2_000_000, 16, 300, 6)
    model = KMeans(256, max_iter=300, tol=0.0, random_state=1, backend="cpu")
    fired = []

    def interrupt():
        fired.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(1.0, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            model.fit(X)
        stopped = time.monotonic()
    finally:
        timer.cancel()
    assert fired, "the fit ended before the interrupt was sent"
    assert stopped - fired[0] < 2.0, f"the fit stopped {stopped - fired[0]:.2f} s after Ctrl+C"
    # The estimator is still usable.
    small = KMeans(3, random_state=0, backend="cpu").fit(blobs(3000, 2, 3, 1))
    assert small.labels_.shape == (3000,)


def test_check_estimator():
    """Every check of scikit-learn's check_estimator passes, except those it skips: pandas input
    when pandas is not installed, and zero sample weights against removed rows, which
    scikit-learn's own KMeans marks as expected to fail too (KMeans._more_tags says why)."""
    estimator_checks = pytest.importorskip("sklearn.utils.estimator_checks")
    failures, skipped, passed = {}, {}, 0
    for estimator, check in estimator_checks.check_estimator(
            KMeans(n_clusters=3, backend="cpu"), generate_only=True):
        name = getattr(check, "func", check).__name__
        try:
            check(estimator)
            passed += 1
        except unittest.SkipTest as reason:
            skipped[name] = str(reason)
        except Exception as error:  # noqa: BLE001 - every failing check is listed
            failures[name] = f"{type(error).__name__}: {error}"[:300]
    assert not failures, "\n".join(f"{k}: {v}" for k, v in failures.items())
    assert passed >= 40
    for reason in skipped.values():
        assert "pandas" in reason or "check_sample_weights_invariance" in reason, reason


def test_version():
    assert kmeans_studio.__version__


def photo_like(height, width, seed):
    """A smooth picture with noise: many distinct colours, most repeated."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([128 + 100 * np.sin(x / 17.0), 128 + 90 * np.cos(y / 11.0),
                     128 + 60 * np.sin((x + y) / 23.0)], axis=2)
    return np.clip(base + rng.normal(0, 6, base.shape), 0, 255).astype(np.uint8)


def test_quantize_equals_kmeans_cli(tmp_path):
    cli = os.environ.get("KMS_CLI")
    if not cli:
        pytest.skip("KMS_CLI (kmeans-cli) not given")
    picture = photo_like(96, 128, 3)
    ppm = tmp_path / "p.ppm"
    with open(ppm, "wb") as f:
        f.write(b"P6\n128 96\n255\n" + picture.tobytes())
    subprocess.run([cli, str(ppm), "-k", "16", "--seed", "5", "--restarts", "2", "--backend", "cpu",
                    "--out-labels", str(tmp_path / "l.csv"), "--out-centroids",
                    str(tmp_path / "c.csv"), "-q"], check=True)
    labels, centroids = read_cli_outputs(tmp_path / "l.csv", tmp_path / "c.csv")
    palette, indices, found = kmeans_studio.quantize(picture, 16, n_init=2, random_state=5,
                                                     backend="cpu")
    assert np.array_equal(found.view(np.uint32), centroids.view(np.uint32))
    assert np.array_equal(indices.ravel(), labels)
    assert palette.shape == (16, 3) and palette.dtype == np.uint8
    assert np.array_equal(palette, np.clip(np.floor(centroids * 255 + 0.5), 0, 255).astype(np.uint8))
    with pytest.raises(ValueError, match="distinct colours"):
        kmeans_studio.quantize(np.zeros((4, 4, 3), np.uint8), 2)


def _nearest(X, c):
    """Each row's nearest centroid in double (the tests' data have no near ties)."""
    d = ((X.astype(np.float64)[:, None, :] - c.astype(np.float64)[None, :, :]) ** 2).sum(-1)
    return d.argmin(1)


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:  # magic, width, height, maximum, separated by whitespace
        while data[at:at + 1].isspace():
            at += 1
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    assert fields[0] == b"P6" and fields[3] == b"255"
    width, height = int(fields[1]), int(fields[2])
    return np.frombuffer(data[at + 1:], np.uint8).reshape(height, width, 3)


@pytest.mark.parametrize("space, dither", [("lab", "fs"), ("oklab", "ordered"), ("linear", "none"),
                                           ("srgb", "fs")])
def test_quantize_colour_spaces_and_dithering_equal_kmeans_cli(tmp_path, space, dither):
    cli = os.environ.get("KMS_CLI")
    if not cli:
        pytest.skip("KMS_CLI (kmeans-cli) not given")
    picture = photo_like(150, 200, 11)
    ppm = tmp_path / "p.ppm"
    with open(ppm, "wb") as f:
        f.write(b"P6\n200 150\n255\n" + picture.tobytes())
    subprocess.run([cli, str(ppm), "-k", "12", "--seed", "3", "--backend", "cpu", "--colour-space",
                    space, "--dither", dither, "--out-image", str(tmp_path / "q.ppm"),
                    "--out-centroids", str(tmp_path / "c.csv"), "--out-labels",
                    str(tmp_path / "l.csv"), "-q"], check=True)
    expected = read_ppm(tmp_path / "q.ppm")
    labels, centroids = read_cli_outputs(tmp_path / "l.csv", tmp_path / "c.csv")
    palette, indices, found = kmeans_studio.quantize(picture, 12, colour_space=space, dither=dither,
                                                     random_state=3, backend="cpu")
    assert np.array_equal(found.view(np.uint32), centroids.view(np.uint32))
    assert np.array_equal(palette[indices], expected)
    if dither == "none":
        assert np.array_equal(indices.ravel(), labels)
    else:  # dithering mixes colours: many pixels leave their cluster's colour, all stay in palette
        assert indices.min() >= 0 and indices.max() < 12
        assert 0.05 < np.mean(indices.ravel() != labels) < 0.95
    with pytest.raises(ValueError, match="colour_space"):
        kmeans_studio.quantize(picture, 4, colour_space="hsv")
    with pytest.raises(ValueError, match="dither"):
        kmeans_studio.quantize(picture, 4, dither="random")


@pytest.mark.parametrize("n_init, record", [(1, True), (3, "labels")])
def test_trace_replays_as_exact_lloyd(tmp_path, n_init, record):
    X = blobs(6000, 3, 6, 8)
    model = KMeans(6, n_init=n_init, random_state=2, backend="cpu", record_trace=record).fit(X)
    plain = KMeans(6, n_init=n_init, random_state=2, backend="cpu").fit(X)
    assert plain.trace_ is None
    assert np.array_equal(model.cluster_centers_.view(np.uint32), plain.cluster_centers_.view(np.uint32))
    assert np.array_equal(model.labels_, plain.labels_)
    trace = model.trace_
    assert trace.centroids.shape == (model.n_iter_ + 1, 6, 3)
    assert np.array_equal(trace.centroids[-1].view(np.uint32), model.cluster_centers_.view(np.uint32))
    assert np.array_equal(trace.inertia, [h["inertia"] for h in model.history_])
    if record == "labels":
        assert trace.labels.shape == (model.n_iter_, len(X))
        # Each iteration's labels are the assignment to the centroids before it.
        for t in (1, model.n_iter_):
            assert np.array_equal(trace.labels[t - 1], _nearest(X, trace.centroids[t - 1]))
        assert np.array_equal(trace.changed, [h["changed"] for h in model.history_])
    else:
        assert trace.labels is None
    folder = trace.save(str(tmp_path / "trace"))
    cli = os.environ.get("KMS_CLI")
    if not cli:
        pytest.skip("KMS_CLI (kmeans-cli) not given")
    np.save(tmp_path / "x.npy", X)
    subprocess.run([cli, str(tmp_path / "x.npy"), "--compare-trace", folder, "--report",
                    str(tmp_path / "r.json"), "-q"], check=True)
    import json
    with open(tmp_path / "r.json") as f:
        report = json.load(f)["trace_comparison"]
    assert report["first_divergence"] == 0, report  # 0: the trace is exact Lloyd to the bit
    assert report["first_flip"] == 0, report
    with pytest.raises(ValueError, match="record_trace"):
        KMeans(2, record_trace="all").fit(X)
    with pytest.raises(ValueError, match="record_trace"):
        KMeans(2, record_trace=True, colour_space="lab").fit(X)
    # A bad array is refused before anything is written.
    with pytest.raises(ValueError, match="inertia"):
        kmeans_studio.write_trace(str(tmp_path / "bad"), trace.centroids, inertia=[1.0])
    assert not (tmp_path / "bad").exists()


@pytest.mark.parametrize("init, n_init, record", [("greedy-k-means++", 1, False),
                                                  ("k-means++", 3, "labels"), ("random", 2, True)])
def test_dedupe_gives_every_row_s_result(init, n_init, record):
    X = np.random.default_rng(1).integers(0, 25, (60000, 3)).astype(np.float32)  # many repeats
    a = KMeans(10, init=init, n_init=n_init, random_state=4, backend="cpu", record_trace=record).fit(X)
    b = KMeans(10, init=init, n_init=n_init, random_state=4, backend="cpu", record_trace=record,
               dedupe=False).fit(X)
    assert np.array_equal(a.cluster_centers_.view(np.uint32), b.cluster_centers_.view(np.uint32))
    assert np.array_equal(a.labels_, b.labels_)
    assert a.inertia_ == b.inertia_ and a.n_iter_ == b.n_iter_
    strip = lambda h: [{key: v for key, v in it.items() if key != "ms"} for it in h]
    assert strip(a.history_) == strip(b.history_)  # changed counts are of the rows as given
    if record:
        assert np.array_equal(a.trace_.centroids, b.trace_.centroids)
        if record == "labels":
            assert a.trace_.labels.shape == (a.n_iter_, len(X))
            assert np.array_equal(a.trace_.labels, b.trace_.labels)
    # No repeats: nothing is merged (the sample finds none) and the result is the same anyway.
    Y = blobs(5000, 2, 4, 2)
    assert _engine.distinct_rows(Y, True) is None
    rows, counts, inverse = _engine.distinct_rows(X, False)
    assert counts.sum() == len(X) and np.array_equal(rows[inverse], X)


def test_colour_space_rows_equal_kmeans_cli_per_pixel(tmp_path):
    cli = os.environ.get("KMS_CLI")
    if not cli:
        pytest.skip("KMS_CLI (kmeans-cli) not given")
    picture = photo_like(60, 80, 9)
    ppm = tmp_path / "p.ppm"
    with open(ppm, "wb") as f:
        f.write(b"P6\n80 60\n255\n" + picture.tobytes())
    # Every pixel a row in pixel order (--per-pixel), clustered in CIELAB.
    subprocess.run([cli, str(ppm), "-k", "6", "--seed", "2", "--backend", "cpu", "--per-pixel",
                    "--colour-space", "lab", "--out-labels", str(tmp_path / "l.csv"),
                    "--out-centroids", str(tmp_path / "c.csv"), "-q"], check=True)
    labels, centroids = read_cli_outputs(tmp_path / "l.csv", tmp_path / "c.csv")
    X = picture.reshape(-1, 3).astype(np.float32) / np.float32(255)
    model = KMeans(6, random_state=2, backend="cpu", colour_space="lab").fit(X)
    assert np.array_equal(model.labels_, labels)
    assert np.array_equal(model.cluster_centers_.view(np.uint32), centroids.view(np.uint32))  # sRGB
    assert np.array_equal(model.predict(X), model.labels_)
    assert model.transform(X[:5]).shape == (5, 6)
    with pytest.raises(ValueError, match="3 features"):
        KMeans(2, colour_space="lab").fit(np.zeros((10, 2), np.float32))
    with pytest.raises(ValueError, match="colour_space"):
        KMeans(2, colour_space="hsv").fit(X)


def test_show_runs_the_same_fit_in_the_window(tmp_path):
    studio = os.environ.get("KMS_STUDIO")
    if not studio:
        pytest.skip("KMS_STUDIO (kmeans-studio) not given")
    X = blobs(20000, 2, 6, 8)
    model = KMeans(6, n_init=2, random_state=4, backend="cpu").fit(X)
    report = tmp_path / "report.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    window = kmeans_studio.show(X, model, env=env,
                                args=["--no-persist", "--speed", "flat", "--report", str(report),
                                      "--quit-when-finished", "--timeout-ms", "120000"])
    assert window.wait(timeout=150) == 0
    import json
    shown = json.loads(report.read_text())
    assert shown["iteration_count"] == model.n_iter_
    assert shown["final_inertia"] == pytest.approx(model.inertia_, rel=1e-12)
    assert len(shown["starts"]) == 2


def test_show_opens_a_trace_beside_exact_lloyd(tmp_path):
    studio = os.environ.get("KMS_STUDIO")
    if not studio:
        pytest.skip("KMS_STUDIO (kmeans-studio) not given")
    X = blobs(5000, 2, 5, 3)
    model = KMeans(5, random_state=2, backend="cpu", record_trace=True).fit(X)
    shot = tmp_path / "trace.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    window = kmeans_studio.show(X, trace=model.trace_, env=env, stdout=subprocess.PIPE, text=True,
                                args=["--no-persist", "--screenshot", str(shot),
                                      "--timeout-ms", "120000"])
    out, _ = window.communicate(timeout=150)
    assert window.returncode == 0, out
    assert f"trace compared over {model.n_iter_} iterations" in out
    assert shot.stat().st_size > 0


def test_show_needs_the_program(monkeypatch):
    monkeypatch.setenv("KMS_STUDIO", "")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(FileNotFoundError, match="kmeans-studio"):
        kmeans_studio.show(np.zeros((10, 2), np.float32))

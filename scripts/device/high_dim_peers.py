# Same-data, same-start peers for the high-dimensional cases (issue 32), run on the GPU machine by
# scripts/device/high-dim-peers.sh:
#   python3 high_dim_peers.py make N D K SEED OUTDIR [--randn]
#       X.npy (N × D float32: a Gaussian mixture of K groups with centres in [0, 10)^D and
#       spread 0.35, as kmeans-bench's cases; --randn: standard normal, Flash-KMeans' own data)
#       and C.npy / C.csv (K distinct rows of X picked by a seeded permutation: a random start).
#   python3 high_dim_peers.py run X.npy C.npy ITERS [--flash DIR] [--labels-out DIR]
#       PyTorch's Lloyd (GEMM distances, argmin, index_add_ sums; FP32 and TF32 GEMM) and
#       Flash-KMeans (github.com/svg-project/flash-kmeans, carried in DIR, never committed; FP32
#       input) from C for ITERS iterations, each iteration timed with CUDA events; prints one JSON
#       line a peer: the median ms of iterations 6-40 and of the last 10. An empty cluster keeps
#       its centroid (as kmeans-cli --empty-clusters keep).
#   python3 high_dim_peers.py torch-large N D K ITERS
#       PyTorch's Lloyd at a shape whose n × k distances do not fit at once (10 M × 65,536):
#       the distances and argmin in chunks of rows, FP32 and TF32 GEMM, on a Gaussian mixture
#       drawn on the GPU (its cost does not depend on the data); the median ms of ITERS.
import json
import statistics
import sys

import numpy as np


def make(n, d, k, seed, out, randn):
    rng = np.random.default_rng(seed)
    if randn:
        x = rng.standard_normal((n, d), dtype=np.float32)
    else:
        centres = rng.uniform(0.0, 10.0, (k, d)).astype(np.float32)
        x = np.empty((n, d), np.float32)
        step = 1 << 18
        for s in range(0, n, step):
            m = min(step, n - s)
            x[s:s + m] = centres[rng.integers(0, k, m)] + rng.normal(0.0, 0.35, (m, d)).astype(np.float32)
    np.save(f"{out}/X.npy", x)
    c = x[rng.permutation(n)[:k]].copy()
    np.save(f"{out}/C.npy", c)
    np.savetxt(f"{out}/C.csv", c, fmt="%.9g", delimiter=",")  # kmeans-cli --init-centroids


def medians(times):
    body = times[5:40]
    return {"median_6_40_ms": statistics.median(body), "median_last10_ms": statistics.median(times[-10:]),
            "iterations": len(times)}


def run(xpath, cpath, iters, flash_dir, labels_out):
    import torch
    x = torch.from_numpy(np.load(xpath)).cuda()
    c0 = torch.from_numpy(np.load(cpath)).cuda()
    n, d = x.shape
    k = c0.shape[0]
    results = []

    def timed(step, c):
        times = []
        for _ in range(iters):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            c, labels = step(c)
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        return times, labels

    xn = (x * x).sum(1, keepdim=True)

    def lloyd(c):
        dist = xn - 2 * x @ c.T + (c * c).sum(1)
        labels = dist.argmin(1)
        sums = torch.zeros(k, d, device="cuda").index_add_(0, labels, x)
        counts = torch.bincount(labels, minlength=k).unsqueeze(1)
        return torch.where(counts > 0, sums / counts.clamp(min=1), c), labels

    for name, tf32 in (("PyTorch Lloyd, FP32 GEMM", False), ("PyTorch Lloyd, TF32 GEMM", True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        times, labels = timed(lloyd, c0.clone())
        results.append((name, times, labels))
    torch.backends.cuda.matmul.allow_tf32 = False

    if flash_dir:
        try:
            sys.path.insert(0, flash_dir)
            from flash_kmeans.kmeans_triton_impl import _euclid_iter
            xb = x.unsqueeze(0)
            x_sq = (xb * xb).sum(-1)

            def flash(c):
                new, _, labels = _euclid_iter(xb, x_sq, c, True)
                return new.clone(), labels[0]

            flash(c0.clone().unsqueeze(0))  # Triton's compilation, untimed
            times, labels = timed(flash, c0.clone().unsqueeze(0))
            results.append(("Flash-KMeans (Triton, FP32 input)", times, labels))
        except Exception as error:  # a missing Triton or package: say so, keep the others
            print(json.dumps({"peer": "Flash-KMeans", "error": repr(error)}))

    for name, times, labels in results:
        print(json.dumps({"peer": name, "n": n, "d": d, "k": k, **medians(times)}))
        if labels_out:
            tag = name.split(",")[0].split(" ")[0].lower() + ("-tf32" if "TF32" in name else "")
            np.save(f"{labels_out}/labels-{tag}.npy", labels.to(torch.int32).cpu().numpy())


def torch_large(n, d, k, iters):
    import torch
    g = torch.Generator(device="cuda").manual_seed(5)
    centres = torch.rand(k, d, device="cuda", generator=g) * 10
    x = torch.empty(n, d, device="cuda")
    step = 1 << 20
    for s in range(0, n, step):
        m = min(step, n - s)
        pick = torch.randint(0, k, (m,), device="cuda", generator=g)
        x[s:s + m] = centres[pick] + 0.35 * torch.randn(m, d, device="cuda", generator=g)
    c0 = x[torch.randperm(n, device="cuda", generator=g)[:k]].clone()
    chunk = max(1, (1 << 31) // (4 * k))  # 8 GB of distances at a time

    def lloyd(c):
        cn = (c * c).sum(1)
        labels = torch.empty(n, dtype=torch.long, device="cuda")
        for s in range(0, n, chunk):
            xs = x[s:s + chunk]
            labels[s:s + chunk] = (cn - 2 * xs @ c.T).argmin(1)
        sums = torch.zeros(k, d, device="cuda").index_add_(0, labels, x)
        counts = torch.bincount(labels, minlength=k).unsqueeze(1)
        return torch.where(counts > 0, sums / counts.clamp(min=1), c)

    for name, tf32 in (("PyTorch Lloyd, FP32 GEMM", False), ("PyTorch Lloyd, TF32 GEMM", True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        c = lloyd(c0.clone())  # warm-up
        times = []
        for _ in range(iters):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            c = lloyd(c)
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        print(json.dumps({"peer": name, "n": n, "d": d, "k": k, "iterations": iters,
                          "median_ms": statistics.median(times)}))


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "torch-large":
        torch_large(int(a[1]), int(a[2]), int(a[3]), int(a[4]))
    elif a[0] == "make":
        make(int(a[1]), int(a[2]), int(a[3]), int(a[4]), a[5], "--randn" in a)
    else:
        opt = lambda flag: a[a.index(flag) + 1] if flag in a else None
        run(a[1], a[2], int(a[3]), opt("--flash"), opt("--labels-out"))

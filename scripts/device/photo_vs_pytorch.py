#!/usr/bin/env python3
"""One real photograph, one GPU, one run: KMeans Studio's exact Lloyd on the photo's distinct
colours and on its pixels one by one (kmeans-bench --photo) against PyTorch's plain Lloyd on
every pixel (GEMM + argmin + index_add), k = 16 by default (--k 16,64,256 for several). Prints both per-iteration times and their ratio, and writes
photo-vs-pytorch.json and the bench's markdown table to $OUT.

Usage (on the GPU machine, repository root, device-bundle/ carried):
    python3 scripts/device/photo_vs_pytorch.py PHOTO.jpg [--k 16] [--bench device-bundle/kmeans-bench]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
from PIL import Image


def pytorch_lloyd_ms(pixels, k, iterations, warmup, seed=1):
    """Median milliseconds of one Lloyd iteration in PyTorch on the GPU (CUDA events)."""
    x = torch.from_numpy(pixels.reshape(-1, 3).astype(np.float32) / 255.0).cuda()
    g = torch.Generator(device="cpu").manual_seed(seed)
    centroids = x[torch.randperm(x.shape[0], generator=g)[:k].cuda()].clone()
    x_norm = (x * x).sum(1, keepdim=True)
    times = []
    for it in range(warmup + iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        # ‖x − c‖² = ‖x‖² − 2 x·c + ‖c‖², the GEMM form every GPU k-means uses.
        d2 = torch.addmm(x_norm + (centroids * centroids).sum(1)[None, :], x, centroids.t(),
                         beta=1.0, alpha=-2.0)
        labels = d2.argmin(1)
        sums = torch.zeros_like(centroids).index_add_(0, labels, x)
        counts = torch.bincount(labels, minlength=k).to(x.dtype)
        centroids = torch.where(counts[:, None] > 0, sums / counts.clamp(min=1)[:, None],
                                centroids)
        stop.record()
        stop.synchronize()
        if it >= warmup:
            times.append(start.elapsed_time(stop))
    return float(np.median(times)), x.shape[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("photo")
    parser.add_argument("--k", default="16", help="one k or several, comma-separated")
    parser.add_argument("--bench", default="device-bundle/kmeans-bench")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--torch-iterations", type=int, default=30)
    args = parser.parse_args()
    out_dir = os.environ.get("OUT", "/tmp")

    image = Image.open(args.photo)
    image = image.convert("RGB")
    pixels = np.asarray(image)
    ppm = os.path.join(tempfile.gettempdir(), "photo.ppm")
    image.save(ppm)

    bench_md = os.path.join(out_dir, "photo-bench.md")
    run = subprocess.run([args.bench, "--photo", ppm, "--only", "real photo", "--no-cpu",
                          "--iterations", str(args.iterations), "--warmup", "20",
                          "--markdown", bench_md], capture_output=True, text=True)
    print(run.stdout)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr)
        sys.exit(run.returncode)
    results = []
    for k in [int(v) for v in args.k.split(",")]:
        ours = per_pixel = None
        for line in run.stdout.splitlines():
            m = re.match(r"\| real photo .* distinct colours, k=(\d+) \| cuda \| ([0-9.]+) \|", line)
            if m and int(m.group(1)) == k:
                ours = float(m.group(2))
            m = re.match(r"\| real photo .* per pixel, k=(\d+) \| cuda \| ([0-9.]+) \|", line)
            if m and int(m.group(1)) == k:
                per_pixel = float(m.group(2))
        if ours is None:
            sys.exit("kmeans-bench printed no distinct-colour CUDA row for k = %d" % k)
        torch_ms, n = pytorch_lloyd_ms(pixels, k, args.torch_iterations, 3)
        results.append({
            "photo": os.path.basename(args.photo),
            "pixels": n,
            "k": k,
            "device": torch.cuda.get_device_name(0),
            "kmeans_studio_distinct_colours_ms_per_iteration": ours,
            "kmeans_studio_per_pixel_ms_per_iteration": per_pixel,
            "pytorch_per_pixel_ms_per_iteration": torch_ms,
            "ratio_distinct": torch_ms / ours,
            "ratio_per_pixel": torch_ms / per_pixel if per_pixel else None,
            "torch": torch.__version__,
        })
    print(json.dumps(results, indent=2))
    with open(os.path.join(out_dir, "photo-vs-pytorch.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()

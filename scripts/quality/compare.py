#!/usr/bin/env python3
"""Colour quantisation quality on real photographs: KMeans Studio (kmeans-cli --restarts 8)
against the best of 10 scikit-learn KMeans runs (n_init=1, seeds 0-9) and pngquant
(--speed 1 --nofs), at k = 16 and 64, no dithering. PSNR in sRGB (R, G, B, 8-bit palettes as
written), computed here the same way for all three from the PNGs they write.

    scripts/quality/compare.py PHOTO... [--cli build/app/kmeans-cli] [--k 16 64]
                               [--markdown docs/quality.md] [--json results.json]

Needs python3-sklearn, python3-pil and pngquant (Debian packages); a benchmark, not a test.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image


def psnr(original, quantised):
    diff = original.astype(np.float64) - quantised.astype(np.float64)
    mse = np.mean(diff * diff)
    return float("inf") if mse == 0 else 10.0 * np.log10(255.0 ** 2 / mse)


def rgb(path):
    return np.asarray(Image.open(path).convert("RGB"))


def ours(cli, photo, k, work, extra):
    out = os.path.join(work, "ours-%d.png" % k)
    report = os.path.join(work, "ours-%d.json" % k)
    start = time.perf_counter()
    subprocess.run([cli, photo, "-k", str(k), "--restarts", "8", "--out-image", out,
                    "--report", report, "--quiet"] + extra, check=True)
    seconds = time.perf_counter() - start
    with open(report) as f:
        iterations = sum(s["iterations"] for s in json.load(f)["starts"])
    return out, seconds, iterations


def sklearn_best(pixels, k, seeds):
    from sklearn.cluster import KMeans
    x = pixels.reshape(-1, 3).astype(np.float64)
    best, best_psnr, total = None, -1.0, 0.0
    for seed in seeds:
        start = time.perf_counter()
        model = KMeans(n_clusters=k, n_init=1, random_state=seed).fit(x)
        total += time.perf_counter() - start
        palette = np.clip(np.rint(model.cluster_centers_), 0, 255).astype(np.uint8)
        quantised = palette[model.labels_].reshape(pixels.shape)
        value = psnr(pixels, quantised)
        if value > best_psnr:
            best, best_psnr = seed, value
    return best_psnr, best, total


def pngquant(photo, k, work):
    src = os.path.join(work, "source.png")
    Image.open(photo).convert("RGB").save(src)
    out = os.path.join(work, "pngquant-%d.png" % k)
    start = time.perf_counter()
    subprocess.run(["pngquant", "--speed", "1", "--nofs", "--force", "--quality", "0-100",
                    "--output", out, str(k), src], check=True)
    return out, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("photos", nargs="+")
    parser.add_argument("--cli", default="build/app/kmeans-cli")
    parser.add_argument("--k", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--cli-args", default="", help="more kmeans-cli arguments")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    parser.add_argument("--sklearn-cache", help="JSON file keeping scikit-learn's results")
    args = parser.parse_args()
    cache = {}
    if args.sklearn_cache and os.path.exists(args.sklearn_cache):
        with open(args.sklearn_cache) as f:
            cache = json.load(f)
    rows = []
    for photo in args.photos:
        pixels = rgb(photo)
        for k in args.k:
            with tempfile.TemporaryDirectory() as work:
                out, our_seconds, our_iterations = ours(args.cli, photo, k, work,
                                                        args.cli_args.split())
                ours_psnr = psnr(pixels, rgb(out))
                quant_out, quant_seconds = pngquant(photo, k, work)
                quant_psnr = psnr(pixels, rgb(quant_out))
            key = "%s/%d" % (os.path.basename(photo), k)
            if key not in cache:
                cache[key] = sklearn_best(pixels, k, range(10))
                if args.sklearn_cache:
                    with open(args.sklearn_cache, "w") as f:
                        json.dump(cache, f, indent=1)
            sk_psnr, sk_seed, sk_seconds = cache[key]
            row = {"photo": os.path.basename(photo), "pixels": int(pixels.shape[0] * pixels.shape[1]),
                   "k": k, "ours": ours_psnr, "ours_seconds": our_seconds,
                   "ours_iterations": our_iterations, "sklearn_best_of_10": sk_psnr,
                   "sklearn_best_seed": sk_seed, "sklearn_seconds": sk_seconds,
                   "pngquant": quant_psnr, "pngquant_seconds": quant_seconds}
            rows.append(row)
            print("%-40s k=%-3d ours %.3f dB (%.1f s)  sklearn best %.3f dB (%.0f s for 10)  "
                  "pngquant %.3f dB" % (row["photo"], k, ours_psnr, our_seconds, sk_psnr,
                                       sk_seconds, quant_psnr), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    if args.markdown:
        lines = ["| photo | k | KMeans Studio, best of 8 | scikit-learn, best of 10 | Δ | "
                 "pngquant --speed 1 --nofs | Δ |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append("| %s | %d | %.2f | %.2f | %+.2f | %.2f | %+.2f |" % (
                r["photo"], r["k"], r["ours"], r["sklearn_best_of_10"],
                r["ours"] - r["sklearn_best_of_10"], r["pngquant"], r["ours"] - r["pngquant"]))
        for k in args.k:
            sel = [r for r in rows if r["k"] == k]
            lines.append("| **mean** | %d | %.2f | %.2f | %+.2f | %.2f | %+.2f |" % (
                k, np.mean([r["ours"] for r in sel]), np.mean([r["sklearn_best_of_10"] for r in sel]),
                np.mean([r["ours"] - r["sklearn_best_of_10"] for r in sel]),
                np.mean([r["pngquant"] for r in sel]),
                np.mean([r["ours"] - r["pngquant"] for r in sel])))
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

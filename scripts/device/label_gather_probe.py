#!/usr/bin/env python3
"""Probe (GPU machine, PyTorch): what expanding labels from distinct colours to every pixel costs.

The benchmarks' real photo (the three phone photos of stack_photos.py) has 17,978,112 pixels of
538,753 distinct colours. An engine that iterated over the distinct colours with their counts
would give each pixel its colour's label: this times that gather (one-byte labels through 32-bit
run indices) with CUDA events, median of 50 after 10 warm-up. docs/benchmarks.md quotes it.

Usage (in a folder with photos/lunch.jpg, cannon.jpg, saboteur.jpg): label_gather_probe.py
"""
import numpy as np
import torch
from PIL import Image


def main():
    photos = [np.asarray(Image.open(f"photos/{name}.jpg").convert("RGB"))
              for name in ("lunch", "cannon", "saboteur")]
    pixels = np.concatenate(photos, axis=0).reshape(-1, 3)
    key = (pixels[:, 0].astype(np.int64) << 16) | (pixels[:, 1].astype(np.int64) << 8) | pixels[:, 2]
    distinct, run = np.unique(key, return_inverse=True)
    print(f"pixels {len(pixels)}, distinct colours {len(distinct)}")
    device = torch.device("cuda")
    run_of_pixel = torch.from_numpy(run.astype(np.int32)).to(device)
    colour_labels = torch.randint(0, 256, (len(distinct),), dtype=torch.uint8, device=device)
    pixel_labels = torch.empty(len(pixels), dtype=torch.uint8, device=device)
    for _ in range(10):
        torch.index_select(colour_labels, 0, run_of_pixel, out=pixel_labels)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(50):
        start.record()
        torch.index_select(colour_labels, 0, run_of_pixel, out=pixel_labels)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    print(f"{torch.cuda.get_device_name()}: labels of every pixel gathered in "
          f"{np.median(times):.4f} ms (median), {min(times):.4f} ms (best)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Stacks photographs top to bottom into one binary PPM for `kmeans-bench --photo`.

The benchmarks' real photo is three phone photos of github.com/tomsaleeba/test-data-site
(`originals/lunch.jpg`, `cannon.jpg`, `saboteur.jpg`, 3264 × 1836 each) stacked into 3264 × 5508
pixels (17.98 MP, 538,753 distinct colours as PIL decodes them).

Usage: stack_photos.py OUT.ppm PHOTO.jpg [PHOTO.jpg ...]
"""
import sys

import numpy as np
from PIL import Image


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    images = [np.asarray(Image.open(path).convert("RGB")) for path in sys.argv[2:]]
    width = images[0].shape[1]
    for path, image in zip(sys.argv[2:], images):
        if image.shape[1] != width:
            sys.exit(f"{path}: {image.shape[1]} pixels wide, the first photo {width}")
    Image.fromarray(np.concatenate(images, axis=0)).save(sys.argv[1])


if __name__ == "__main__":
    main()

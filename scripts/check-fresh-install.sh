#!/usr/bin/env bash
# Installs a KMeans Studio .deb on a fresh Debian 12 (a debootstrap chroot: nothing but the base
# system) and checks what a new user does first: the programs start, kmeans-cli quantises the
# packaged photo and writes a clip, and Python imports kmeans_studio and fits an array with the
# packaged engine. Needs root, debootstrap and Debian's mirror (apt pulls the dependencies).
#   scripts/check-fresh-install.sh build/kmeans-studio_*.deb [ROOT]
# ROOT: where the fresh system goes (default: a new temporary folder, removed afterwards; a
# folder that already holds a debootstrapped system is copied, so it stays fresh).
set -euo pipefail
deb=$(realpath "$1")
base=${2:-}
[ "$(id -u)" = 0 ] || { echo "check-fresh-install: needs root (chroot, apt-get)" >&2; exit 2; }
command -v debootstrap > /dev/null || apt-get install -y -qq debootstrap > /dev/null
work=$(mktemp -d /var/tmp/kms-fresh.XXXXXX)
root=$work/root
cleanup() {
  for m in proc sys dev/pts dev; do umount -l "$root/$m" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
if [ -n "$base" ] && [ -x "$base/bin/bash" ]; then
  cp -a "$base" "$root"
else
  debootstrap bookworm "$root" http://deb.debian.org/debian > "$work/debootstrap.log"
fi
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
name=$(basename "$deb")
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

start=$(date +%s)
in_root apt-get update -qq
in_root apt-get install -y -qq "/tmp/$name" > "$work/apt.log" 2>&1 || { tail -30 "$work/apt.log"; exit 1; }
echo "installed $name and its dependencies in $(( $(date +%s) - start )) s"
in_root kmeans-cli --version
in_root env QT_QPA_PLATFORM=offscreen kmeans-studio --version
in_root kmeans-cli /usr/share/kmeans-studio/samples/tulip-field.png -k 8 --out-image /tmp/q.png -q
in_root kmeans-cli /usr/share/kmeans-studio/samples/blobs-2d.csv -k 5 --half-steps \
  --animate /tmp/blobs.gif -q
for f in q.png blobs.gif; do
  [ -s "$root/tmp/$f" ] || { echo "check-fresh-install: kmeans-cli wrote no /tmp/$f" >&2; exit 1; }
done
echo "kmeans-cli wrote a quantised photo ($(stat -c %s "$root/tmp/q.png") bytes) and a clip ($(stat -c %s "$root/tmp/blobs.gif") bytes)"
in_root python3 -c "import kmeans_studio"
in_root python3 - << 'PY'
import numpy as np, kmeans_studio, os
X = np.random.default_rng(0).normal(size=(20000, 2)).astype(np.float32)
m = kmeans_studio.KMeans(n_clusters=8, random_state=1).fit(X)
engine = os.path.realpath(kmeans_studio._engine.__file__)
print(f"python3: kmeans_studio {kmeans_studio.__version__} from {os.path.dirname(engine)}: "
      f"fit 20,000 x 2, k = 8 in {m.n_iter_} iterations on {m.backend_}, inertia {m.inertia_:.1f}")
PY
echo "check-fresh-install: all checks passed on a fresh Debian $(cat "$root/etc/debian_version")"

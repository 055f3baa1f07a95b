#!/usr/bin/env bash
# The quick start on a bare Debian 12: a debootstrap chroot, a clone of this repository, and
# scripts/run.sh timed from the clone to the palette PNG, apt included (issue 36's 4-minute
# target). Needs root, debootstrap and Debian's mirror.
#   scripts/check-fresh-run.sh [BASE]   BASE: a debootstrapped system to copy (else one is made)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-}
work=$(mktemp -d /var/tmp/kms-runsh.XXXXXX)
root=$work/root
cleanup() { for m in proc sys dev/pts dev; do umount -l "$root/$m" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
if [ -n "$base" ] && [ -x "$base/bin/bash" ]; then
  cp -a "$base" "$root"
else
  debootstrap bookworm "$root" http://deb.debian.org/debian > "$work/debootstrap.log"
fi
mount -t proc proc "$root/proc"; mount --rbind /sys "$root/sys"; mount --rbind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q "$repo" "$root/root/kmeans-studio"
rm -rf "$root/root/kmeans-studio/.git/hooks"
start=$(date +%s.%N)
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  bash -c 'cd /root/kmeans-studio && time scripts/run.sh' > "$work/run.log" 2>&1 || { tail -40 "$work/run.log"; exit 1; }
end=$(date +%s.%N)
tail -8 "$work/run.log"
ls -la "$root/root/kmeans-studio/out/"
echo "clone to palette PNG, apt included: $(echo "$end - $start" | bc) s"

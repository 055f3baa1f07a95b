#!/usr/bin/env bash
# Builds the Debian package from build/ (as scripts/build.sh makes it) and checks it: the files a
# desktop expects, the dependencies dpkg-shlibdeps found (no CUDA runtime: it is linked
# statically into the engine library), the desktop entry and AppStream metadata validate, and the
# packaged programs start (--version, no display needed) from an unpacked copy, with the
# package's own engine library.
#   scripts/package.sh        → build/kmeans-studio_<version>_<arch>.deb
# Install it with: sudo apt install ./build/kmeans-studio_*.deb
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/build.sh"
rm -f build/kmeans-studio_*.deb
(cd build && cpack -G DEB > cpack.log 2>&1) || { cat build/cpack.log; exit 1; }
deb=$(ls build/kmeans-studio_*.deb)
fail() { echo "package: $deb: $*" >&2; exit 1; }

contents=$(dpkg-deb -c "$deb")
app=org.kmeansstudio.KMeansStudio
engine=usr/lib/kmeans-studio/libkmeans_engine.so
expected=(usr/bin/kmeans-studio usr/bin/kmeans-cli usr/bin/kmeans-bench "$engine"
          "usr/share/applications/$app.desktop" "usr/share/metainfo/$app.metainfo.xml"
          usr/share/man/man1/kmeans-cli.1.gz usr/share/icons/hicolor/scalable/apps/kmeans-studio.svg
          usr/share/kmeans-studio/samples/tulip-field.png usr/share/kmeans-studio/samples/blobs-2d.csv
          usr/share/kmeans-studio/samples/cloud-3d.ply)
for size in 16 22 24 32 48 64 96 128 256 512; do
  expected+=("usr/share/icons/hicolor/${size}x${size}/apps/kmeans-studio.png")
done
for file in "${expected[@]}"; do
  grep -q " \./$file\$" <<< "$contents" || fail "missing $file"
done

depends=$(dpkg-deb -f "$deb" Depends)
for library in libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6datavisualization6; do
  grep -q "$library" <<< "$depends" || fail "Depends lacks $library: $depends"
done
grep -qi cuda <<< "$depends" && fail "Depends names CUDA (the runtime should be static): $depends"
# kmeans-cli runs under mpirun when built with MPI (Open MPI's library, found by dpkg-shlibdeps).
if ldd build/app/kmeans-cli | grep -q libmpi; then
  grep -q libopenmpi <<< "$depends" || fail "kmeans-cli links MPI but Depends lacks Open MPI: $depends"
fi

unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
dpkg-deb -x "$deb" "$unpacked"
for program in kmeans-studio kmeans-cli kmeans-bench; do
  binary="$unpacked/usr/bin/$program"
  if ldd "$binary" | grep -E "not found|libcudart"; then fail "$program: unexpected libraries"; fi
  loaded=$(ldd "$binary" | awk '/libkmeans_engine\.so =>/ {print $3}')
  [ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$unpacked/$engine")" ] ||
    fail "$program does not load the packaged engine (it loads '$loaded')"
  version=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$binary" --version)
  echo "$program --version: $version"
  grep -q "0\.\|[0-9]\." <<< "$version" || fail "$program --version printed '$version'"
done
# The MP4 encoder, when the build has FFmpeg: a module of its own that the programs load only
# when they write an MP4 (so FFmpeg's libraries are not loaded at every start); the packaged
# kmeans-cli finds the packaged module and writes a clip with it.
if [ -f build/app/libkms_clip_mp4.so ]; then
  grep -q " \./usr/lib/kmeans-studio/libkms_clip_mp4.so\$" <<< "$contents" ||
    fail "missing usr/lib/kmeans-studio/libkms_clip_mp4.so"
  if ldd "$unpacked/usr/bin/kmeans-cli" | grep -q libavcodec; then
    fail "kmeans-cli links FFmpeg itself (only its MP4 module should)"
  fi
  QT_QPA_PLATFORM=offscreen "$unpacked/usr/bin/kmeans-cli" --generate blobs --points 300 -k 3 \
    --animate "$unpacked/clip.mp4" -q > /dev/null || fail "the packaged kmeans-cli cannot write an MP4"
  [ -s "$unpacked/clip.mp4" ] || fail "the packaged kmeans-cli wrote no MP4"
  echo "kmeans-cli --animate clip.mp4: $(du -h "$unpacked/clip.mp4" | cut -f1), with the packaged MP4 module"
fi
# The Python package, when the build made it: importable from the unpacked tree, its module
# loading the packaged engine.
if [ -d build/python/kmeans_studio ]; then
  python_dir="$unpacked/usr/lib/python3/dist-packages"
  [ -f "$python_dir/kmeans_studio/__init__.py" ] || fail "missing the Python package kmeans_studio"
  PYTHONPATH="$python_dir" /usr/bin/python3 -c "
import numpy as np, kmeans_studio
m = kmeans_studio.KMeans(3, random_state=1, backend='cpu').fit(np.arange(40, dtype=np.float32).reshape(20, 2))
print('python3 -c \"import kmeans_studio\": version', kmeans_studio.__version__, 'labels', m.labels_[:6])
" || fail "the packaged Python package does not import and fit"
  loaded=$(ldd "$python_dir"/kmeans_studio/_engine*.so | awk '/libkmeans_engine\.so =>/ {print $3}')
  [ "$(realpath "$loaded")" = "$(realpath "$unpacked/$engine")" ] ||
    fail "the Python module does not load the packaged engine (it loads '$loaded')"
fi
desktop-file-validate "$unpacked/usr/share/applications/$app.desktop"
appstreamcli validate --no-net "$unpacked/usr/share/metainfo/$app.metainfo.xml"
gzip -t "$unpacked/usr/share/man/man1/kmeans-cli.1.gz"
echo "package: $deb ($(du -h "$deb" | cut -f1)): contents, dependencies and programs check out"
echo "Depends: $depends"

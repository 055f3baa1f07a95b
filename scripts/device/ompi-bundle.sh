#!/usr/bin/env bash
# Packs this machine's Open MPI (Debian 12's, scripts/install-deps.sh) into DIR so that a machine
# without MPI — the GPU machines the device tool lends — can run kmeans-cli under mpirun:
#   scripts/device/ompi-bundle.sh DIR
# There: `source DIR/env.sh`, then `mpirun -np 4 ...`. The tree keeps Debian's layout under
# DIR/usr and DIR/etc, and env.sh points Open MPI's and PMIx's install directories, plugin
# paths and the loader at it (the same libraries, only moved).
set -euo pipefail
out=${1:?usage: ompi-bundle.sh DIR}
lib=/usr/lib/x86_64-linux-gnu
rm -rf "$out" && mkdir -p "$out/usr/bin" "$out/usr/lib" "$out/usr/share" "$out/etc" "$out/deps"
cp -a "$lib/openmpi" "$lib/pmix2" "$out/usr/lib/"
cp -a /usr/share/openmpi "$out/usr/share/"
[ -d /usr/share/pmix ] && cp -a /usr/share/pmix "$out/usr/share/"
cp -a /etc/openmpi "$out/etc/"
cp -L /usr/bin/orterun "$out/usr/bin/mpirun"
cp -L /usr/bin/orted "$out/usr/bin/orted"
# Every library these need that is not the C/C++ runtime, dereferenced.
for f in "$out"/usr/bin/* "$out"/usr/lib/openmpi/lib/*.so* "$out"/usr/lib/openmpi/lib/openmpi3/*.so \
         "$out"/usr/lib/pmix2/lib/*.so* "$out"/usr/lib/pmix2/lib/pmix/*.so; do
  { ldd "$f" 2>/dev/null || true; } | awk '/=> \// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' |
  while read -r dep; do cp -Ln "$dep" "$out/deps/" 2>/dev/null || true; done
cat > "$out/env.sh" <<'ENV'
# Source me: Open MPI and PMIx from this folder.
ompi_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX="$ompi_root/usr" OPAL_EXEC_PREFIX="$ompi_root/usr"
export OPAL_BINDIR="$ompi_root/usr/bin" OPAL_LIBDIR="$ompi_root/usr/lib/openmpi/lib"
export OPAL_PKGLIBDIR="$ompi_root/usr/lib/openmpi/lib/openmpi3"
export OPAL_DATAROOTDIR="$ompi_root/usr/share" OPAL_DATADIR="$ompi_root/usr/share"
export OPAL_PKGDATADIR="$ompi_root/usr/share/openmpi" OPAL_SYSCONFDIR="$ompi_root/etc/openmpi"
export OMPI_MCA_mca_base_component_path="$ompi_root/usr/lib/openmpi/lib/openmpi3"
export PMIX_INSTALL_PREFIX="$ompi_root/usr" PMIX_PREFIX="$ompi_root/usr"
export PMIX_MCA_mca_base_component_path="$ompi_root/usr/lib/pmix2/lib/pmix"
export PATH="$ompi_root/usr/bin:$PATH"
export LD_LIBRARY_PATH="$ompi_root/usr/lib/openmpi/lib:$ompi_root/usr/lib/pmix2/lib:$ompi_root/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Root in a container, and more ranks than cores when asked.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
ENV
du -sh "$out"

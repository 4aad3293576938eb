#!/usr/bin/env bash
# Fills dist/rootfs/ with what the FROM-scratch image holds: dist/islet, the shared libraries it
# links (found with ldd, so this follows the build machine), a passwd entry for the non-root user,
# and writable /tmp and /data.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=dist/islet
[ -x "$bin" ] || { echo "missing $bin: run npm run build first" >&2; exit 1; }
root=dist/rootfs
rm -rf "$root" dist/rootfs-data
mkdir -p "$root/usr/local/bin" "$root/etc/islet" "$root/tmp" dist/rootfs-data
# The Containerfile copies this folder to /data owned by the non-root user (COPY --chown).
echo 'Islet keeps its database and key file here.' > dist/rootfs-data/README
cp "$bin" "$root/usr/local/bin/islet"
for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
echo 'islet:x:65532:65532:islet:/data:/sbin/nologin' > "$root/etc/passwd"
echo 'islet:x:65532:' > "$root/etc/group"
chmod 1777 "$root/tmp"
echo "prepared $root ($(du -sh "$root" | cut -f1))"

#!/usr/bin/env bash
# Builds the container image with buildah and saves it as an OCI archive for air-gapped hosts.
#
#   scripts/image.sh [TAG]          → image islet:TAG and dist/islet-TAG.oci.tar
#
# On the air-gapped host: podman load -i islet-TAG.oci.tar   (or: docker load -i …)
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-$(node -p "require('./package.json').version")}
npm run build
scripts/image-rootfs.sh
buildah build --format docker -t "islet:$tag" -f Containerfile .
rm -f "dist/islet-$tag.oci.tar"
buildah push "islet:$tag" "oci-archive:dist/islet-$tag.oci.tar:islet:$tag"
echo "saved dist/islet-$tag.oci.tar"

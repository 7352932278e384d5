#!/usr/bin/env bash
# Builds the local base image (default `localhost/payment-gateway-base:bookworm`) from Debian's packages:
# no container registry is reachable here, so `debootstrap --variant=minbase bookworm` makes a root file
# system and `podman import` turns it into an image. Needs root (debootstrap). Installs podman and
# debootstrap from Debian when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_IMAGE="${BASE_IMAGE:-localhost/payment-gateway-base:bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
source scripts/container-podman.sh

need_debian_packages podman debootstrap runc

rootfs=$(mktemp -d /var/tmp/payment-gateway-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
# ca-certificates: outbound HTTPS (acquirers, webhooks, OTLP); curl is not needed (the HEALTHCHECK uses node).
debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$MIRROR"
# Nothing a runtime needs: package lists, caches, documentation, locales other than C.
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/doc/* \
  "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*
find "$rootfs"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name 'C*' -exec rm -rf {} + 2>/dev/null || true
tar -C "$rootfs" -c . | podman_ import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE"
podman_ image ls "$BASE_IMAGE"

#!/usr/bin/env bash
# Sourced by scripts/container-*.sh: podman with the settings these machines need (issue 42): the runc
# runtime, cgroupfs, host networking for builds, and a containers.conf without default ulimits.
CONTAINERS_CONF_FILE="${CONTAINERS_CONF:-$PWD/deploy/containers.conf}"
export CONTAINERS_CONF="$CONTAINERS_CONF_FILE"

podman_() {
  podman --runtime runc --cgroup-manager cgroupfs "$@"
}

# Installs Debian's packages for the commands named, when a command is missing.
need_debian_packages() {
  local missing=()
  for command in "$@"; do
    command -v "$command" >/dev/null 2>&1 || [ -x "/usr/sbin/$command" ] || missing+=("$command")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}

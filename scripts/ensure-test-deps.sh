#!/usr/bin/env bash
# Makes sure what the test suite needs beyond npm packages is present: Debian's Chromium for the
# browser tests. Installs it when missing and this user may (root with apt-get); otherwise says how.
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$chromium_path" ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Chromium not found at $chromium_path: installing Debian's chromium package..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "Chromium is required for the browser tests: install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH." >&2
exit 1

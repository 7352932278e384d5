#!/usr/bin/env bash
# What the test suite needs beyond npm packages: Debian's Chromium for the browser tests, Debian's
# PgBouncer for the pooler test (test/pgbouncer.test.ts starts its own pgbouncer process; the system
# service is not used), and a Redis for the shared rate-limit tests. Each is installed or started when
# missing and this machine allows it (root with apt-get); otherwise the script says what to do and
# fails, because a test that cannot run is a failure, not a skip.
set -euo pipefail

# apt-get install of Debian packages, waiting for another install that holds the dpkg or lists lock
# (up to about two minutes) instead of failing at once.
apt_install() {
  local attempt
  for attempt in $(seq 1 12); do
    if apt-get -o DPkg::Lock::Timeout=10 update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=10 install -y -qq "$@" >/dev/null; then
      return 0
    fi
    echo "apt-get could not install $* (attempt $attempt; another install may hold the lock): retrying..." >&2
    sleep 10
  done
  return 1
}
can_apt() { [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; }

chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium_path" ]; then
  if can_apt; then
    echo "Chromium not found at $chromium_path: installing Debian's chromium package..."
    apt_install chromium
  else
    echo "Chromium is required for the browser tests: apt-get install -y chromium, or set CHROMIUM_PATH." >&2
    exit 1
  fi
fi

# PGBOUNCER_PATH names another pgbouncer binary; Debian's package puts it in /usr/sbin.
pgbouncer_path="${PGBOUNCER_PATH:-/usr/sbin/pgbouncer}"
if [ ! -x "$pgbouncer_path" ]; then
  if can_apt; then
    echo "PgBouncer not found at $pgbouncer_path: installing Debian's pgbouncer package..."
    apt_install pgbouncer
  else
    echo "PgBouncer is required for test/pgbouncer.test.ts: apt-get install -y pgbouncer, or set PGBOUNCER_PATH." >&2
    exit 1
  fi
fi

redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
if [ "$redis_url" = "redis://127.0.0.1:6379" ] && command -v redis-cli >/dev/null 2>&1; then
  if [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null || true)" != "PONG" ] && command -v redis-server >/dev/null 2>&1; then
    echo "Redis is not answering on 127.0.0.1:6379: starting it..."
    mkdir -p /tmp/redis-test
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir /tmp/redis-test \
      --logfile /tmp/redis-test/redis.log
    for _ in $(seq 1 20); do [ "$(redis-cli -h 127.0.0.1 ping 2>/dev/null || true)" = "PONG" ] && break; sleep 0.5; done
  fi
fi

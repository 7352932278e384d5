#!/usr/bin/env bash
# What the test suite needs beyond npm packages: Debian's Chromium for the browser tests, and a Redis
# for the shared rate-limit tests. Each is installed or started when missing and this machine allows
# it (root with apt-get); otherwise the script says what to do and fails, because a test that cannot
# run is a failure, not a skip.
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium_path" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Chromium not found at $chromium_path: installing Debian's chromium package..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "Chromium is required for the browser tests: apt-get install -y chromium, or set CHROMIUM_PATH." >&2
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

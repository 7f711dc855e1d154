#!/usr/bin/env bash
# Installs promtool (Debian's prometheus package) when missing: the /metrics tests check the text
# with Prometheus's own rules (`promtool check metrics`). Prints its path.
set -euo pipefail
if ! command -v promtool >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends prometheus >/dev/null 2>&1 || {
    apt-get update >/dev/null && apt-get install -y --no-install-recommends prometheus >/dev/null
  }
fi
command -v promtool

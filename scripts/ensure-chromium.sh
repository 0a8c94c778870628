#!/usr/bin/env bash
# Browser tests drive Debian's Chromium; install it when this machine does not have it.
# Playwright never downloads a browser here (no internet beyond the package registries).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "Installing Debian's chromium for the browser tests…"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
chromium --version

#!/usr/bin/env bash
# Browser tests drive Debian's Chromium headless shell (chromium-headless-shell: the browser
# without its window, what Playwright runs for headless Chromium; the full browser spends a
# tenth of a core on each open page even when nothing moves). Install it when this machine
# does not have it. Playwright never downloads a browser here (no internet beyond the
# package registries).
set -euo pipefail
if [ -x /usr/lib/chromium/chromium-headless-shell ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "Installing Debian's chromium-headless-shell for the browser tests…"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null
/usr/lib/chromium/chromium-headless-shell --version

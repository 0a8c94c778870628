#!/usr/bin/env bash
# The spam test's content engines, rspamd and SpamAssassin (spamd), from Debian: the tests
# run them so the spam test is checked against real engines. The product works without
# them (and says so on each result); only the tests insist.
set -euo pipefail
missing=()
command -v rspamd >/dev/null 2>&1 || missing+=(rspamd)
command -v spamd >/dev/null 2>&1 || missing+=(spamassassin spamd)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "Installing Debian's ${missing[*]} for the spam test's tests…"
$SUDO apt-get update -qq
# --no-install-recommends: otherwise apt pulls systemd and more into the machine.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
rspamd --version | head -1
spamd --version | head -1

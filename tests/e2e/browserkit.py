"""Headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium, for the tests of the
HTML report. The browser is never downloaded: the driver is `/usr/bin/chromedriver` (Selenium Manager is
not asked), the browser `/usr/bin/chromium`; `tests/system/install-chromium.sh` installs both (as root).

Each test's page is opened from disk (`file://`); the browser's own background traffic is switched off
by flags, and the DevTools performance log lists every request the page made (`requests`), so a test can
assert there was none beyond the file itself. `console_errors` reads the browser log.

Waits are on conditions with a generous bound (`WAIT`, for a busy 2-CPU machine), never on the clock.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("ARAZZO_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("ARAZZO_TEST_CHROMEDRIVER", "/usr/bin/chromedriver")
INSTALL = ROOT / "tests" / "system" / "install-chromium.sh"
WAIT = 60.0  # seconds any condition may take on a busy machine


def _ensure_installed() -> None:
    """The tests need Debian's Chromium; as root, the project's script installs it (idempotent), else
    the test fails saying how to get it."""
    if Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists():
        return
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        proc = subprocess.run(
            ["bash", str(INSTALL)], capture_output=True, text=True, timeout=1800, check=False
        )
        if proc.returncode == 0 and Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists():
            return
        pytest.fail(f"{INSTALL.name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    pytest.fail(
        f"the browser tests need {CHROMIUM} and {CHROMEDRIVER} (Debian's chromium and chromium-driver): "
        f"run `sudo bash {INSTALL.relative_to(ROOT)}`"
    )


class Browser:
    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        _ensure_installed()
        self.profile = tempfile.mkdtemp(prefix="arazzo-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--no-first-run",
            "--no-default-browser-check",
            "--metrics-recording-only",
            "--window-size=1600,1000",
            f"--user-data-dir={self.profile}",
        ):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        service = Service(executable_path=CHROMEDRIVER)
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(WAIT)
        self.driver.execute_cdp_cmd("Network.enable", {})  # and the network off, for what it would reach
        offline = {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0}
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", offline)

    def open(self, path: Path) -> Any:
        """Open the page from disk and wait until its script has rendered it; the logs start empty."""
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver.get("about:blank")
        self.driver.get_log("browser")
        self.driver.get_log("performance")
        self.uri = path.resolve().as_uri()
        self.driver.get(self.uri)
        WebDriverWait(self.driver, WAIT).until(
            lambda d: d.execute_script("return document.body.getAttribute('data-ready')") == "true"
        )
        return self.driver

    def wait(self, condition: Any) -> Any:
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.driver, WAIT).until(condition)

    def find(self, css: str) -> Any:
        """The first element matching `css`, once it is there and shown."""
        from selenium.webdriver.common.by import By

        def shown(driver: Any) -> Any:
            for element in driver.find_elements(By.CSS_SELECTOR, css):
                if element.is_displayed():
                    return element
            return False

        return self.wait(shown)

    def click(self, css: str) -> Any:
        element = self.find(css)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        self.driver.execute_script(
            "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", element
        )
        return element

    def console_errors(self) -> list[str]:
        return [e["message"] for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]

    def requests(self) -> list[str]:
        """URLs of every request made since the page was opened (DevTools performance log): by the page
        (its document is the file), and any other that is not the browser's own `chrome://` pages."""
        urls = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") != "Network.requestWillBeSent":
                continue
            params = message["params"]
            url = params["request"]["url"]
            if params.get("documentURL") == self.uri or not url.startswith("chrome://"):
                urls.append(url)
        return urls

    def screenshot(self, path: Path, width: int = 1400, height: int = 900) -> None:
        self.driver.set_window_size(width, height)
        self.driver.save_screenshot(str(path))

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    made = Browser()
    try:
        yield made
    finally:
        made.close()

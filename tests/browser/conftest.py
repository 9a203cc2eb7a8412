"""The web client in a real browser: headless Debian Chromium driven by Selenium.

    live_server   `copas serve` as a real process on a random port, SQLite in a temp dir
    start_server  a factory for servers a test stops and starts itself (restarts)
    browser       a factory of browser windows (each its own profile: its own localStorage)

Skipped, saying how to enable them, when Chromium, its driver or Selenium is
missing (`.ci/run` installs them). Screenshots go to var/browser/ (or
$COPAS_BROWSER_ARTIFACTS). Every window's console is checked for errors when
the test ends. All browser tests share one xdist group: one Chromium at a time
on the two cores, while the other worker runs the rest of the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("COPAS_BROWSER_ARTIFACTS", ROOT / "var" / "browser"))
CHROMIUM = next((path for path in map(shutil.which, ("chromium", "chromium-browser")) if path), None)
CHROMEDRIVER = shutil.which("chromedriver")
ENABLE = "install Chromium to run the browser tests: apt-get install -y chromium chromium-driver (.ci/run does)"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--disable-extensions",
)
# Messages a browser logs for a request the server refused or could not answer.
NETWORK_FAILURE = ("net::ERR_CONNECTION_REFUSED", "net::ERR_EMPTY_RESPONSE", "net::ERR_CONNECTION_RESET", "Failed to fetch", "network error")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "console_allows(*parts): console errors containing these are expected in this test")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.xdist_group("browser"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """`copas serve` on one port and one SQLite file; stop() and start() again keep both."""

    def __init__(self, directory: Path, env: dict[str, str] | None = None) -> None:
        self.extra_env = env or {}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = f"sqlite:///{directory / 'copas.db'}"
        self.log = directory / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LiveServer:
        env = {
            **os.environ,
            "DATABASE_URL": self.database,
            "COPAS_PUBLIC_URL": self.url,
            "COPAS_RATE_LIMIT": "0",
            **self.extra_env,
        }
        command = [sys.executable, "-m", "api.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port), "--workers", "1", "--threads", "16", "--no-dispatcher"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"copas serve exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/v1/health", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("copas serve did not answer within 60 s")

    def stop(self) -> None:
        """Kill the whole process group at once, as a crash would (a graceful stop waits out the long polls)."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    # -- the API, for what a test does beside the page (a second human, checks) --

    def call(self, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    servers: list[LiveServer] = []

    def start(**env: str) -> LiveServer:
        server = LiveServer(tmp_path, env)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("live-server")).start()
    yield server
    server.stop()


class Page:
    """One browser window (its own profile) and the waits a test needs."""

    def __init__(self, driver: Any, name: str) -> None:
        self.driver = driver
        self.name = name
        self.logs: list[dict[str, Any]] = []

    def open(self, url: str) -> Page:
        self.driver.get(url)
        self.wait(lambda: self.js("return document.body.dataset.ready") == "true")
        return self

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def wait(self, condition: Callable[[], Any], timeout: float = 20, message: str = "") -> Any:
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda _: condition(), message or self.name)

    def find(self, selector: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def find_all(self, selector: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def click(self, selector: str) -> None:
        """Click what `selector` finds, finding it again if a newer view replaced it meanwhile."""
        from selenium.common.exceptions import StaleElementReferenceException

        for _ in range(20):
            try:
                self.wait_for(selector).click()
                return
            except StaleElementReferenceException:
                continue
        raise AssertionError(f"{self.name}: {selector} kept being replaced")

    def wait_for(self, selector: str, timeout: float = 20) -> Any:
        return self.wait(lambda: (self.find_all(selector) or [None])[0], timeout, f"{self.name}: {selector}")

    def state(self) -> dict[str, str]:
        return self.js("return Object.assign({}, document.body.dataset)")

    def text(self, selector: str) -> str:
        return self.find(selector).text

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.js("window.scrollTo(0, 0)")
        self.driver.save_screenshot(str(path))
        return path

    def console(self) -> list[dict[str, Any]]:
        self.logs.extend(self.driver.get_log("browser"))
        return self.logs

    def errors(self, allow: tuple[str, ...] = ()) -> list[str]:
        return [entry["message"] for entry in self.console() if entry["level"] == "SEVERE" and not any(part in entry["message"] for part in allow)]

    # -- playing through the page --------------------------------------------------

    def act(self) -> bool:
        """Do what the page offers this seat now (pass three legal cards, play a legal card, choose for the moon)."""
        from selenium.common.exceptions import StaleElementReferenceException

        try:
            return self._act()
        except StaleElementReferenceException:
            return False  # a newer view replaced the cards meanwhile: look again

    def _act(self) -> bool:
        state = self.state()
        if state.get("awaitingMe") != "true" or state.get("busy") == "true":
            return False
        version = state["version"]
        moon = self.find_all("[data-moon]")
        if moon:
            moon[0].click()
        elif state["status"] == "passing":
            if not self.find_all("#pass-submit"):
                return False
            for card in [element.get_attribute("data-card") for element in self.find_all("#hand .card.legal")][:3]:
                self.find(f"#hand [data-card='{card}']").click()
            self.find("#pass-submit").click()
        elif state["status"] == "playing":
            legal = self.find_all("#hand .card.legal")
            if not legal:
                return False
            legal[0].click()
        else:
            return False
        self.wait(lambda: self.state().get("version") != version and self.state().get("busy") != "true", message=f"{self.name}: the move's answer")
        return True


@pytest.fixture
def browser(request: pytest.FixtureRequest) -> Iterator[Callable[..., Page]]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is missing: make install-dev installs the dev extras")
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(ENABLE)
    pages: list[Page] = []
    profiles: list[str] = []

    def open_browser(name: str = "page", *, lang: str = "en", width: int = 1280, height: int = 960) -> Page:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        profile = tempfile.mkdtemp(prefix="copas-chromium-")
        profiles.append(profile)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={width},{height}")
        options.add_argument(f"--lang={lang}")
        options.add_experimental_option("prefs", {"intl.accept_languages": lang})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(30)
        page = Page(driver, name)
        pages.append(page)
        return page

    yield open_browser
    marker = request.node.get_closest_marker("console_allows")
    allowed: tuple[str, ...] = marker.args if marker else ()
    problems = {}
    for page in pages:
        try:
            page.screenshot(f"last-{request.node.name}-{page.name}")  # how each window ended, to look at after a failure
            errors = page.errors(allowed)
            if errors:
                problems[page.name] = errors
        finally:
            page.driver.quit()
    for profile in profiles:
        shutil.rmtree(profile, ignore_errors=True)
    assert not problems, f"console errors: {problems}"


"""`copas serve` in a child process, for the tests that need the real server (gunicorn, gevent).

Imported by the test modules of tests/api (rootdir-relative, no package).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """One `copas serve` node: its base URL and process."""

    def __init__(self, database_url: str, *, workers: int = 1, env: dict[str, str] | None = None, log: Path | None = None) -> None:
        self.database_url = database_url
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        environment = {
            **os.environ,
            "DATABASE_URL": database_url,
            "COPAS_RATE_LIMIT": "0",
            "COPAS_STREAM_KEEPALIVE_SECONDS": "0.5",
            "COPAS_STREAM_SECONDS": "6",
            **(env or {}),
        }
        self._log = open(log, "wb") if log is not None else subprocess.DEVNULL  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "serve", "--port", str(self.port), "--workers", str(workers), "--no-dispatcher", "--no-access-log"],
            cwd=ROOT,
            env=environment,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"copas serve exited with {self.process.returncode}")
            try:
                if requests.get(f"{self.base}/v1/health", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("copas serve did not come up in 60 s")

    def url(self, path: str) -> str:
        return self.base + path

    def health(self) -> dict[str, Any]:
        return requests.get(self.url("/v1/health"), timeout=15).json()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        if self._log is not subprocess.DEVNULL:
            self._log.close()  # type: ignore[union-attr]


class RemoteTable:
    """A table of four humans played over real HTTP."""

    def __init__(self, node: Served) -> None:
        created = requests.post(node.url("/v1/tables"), json={"name": "Ana"}, timeout=10).json()
        self.table_id = created["table_id"]
        self.tokens = [created["token"]]
        for name in ("Bruno", "Carla", "Davi"):
            joined = requests.post(node.url(f"/v1/invites/{created['invite_code']}/join"), json={"name": name}, timeout=10).json()
            self.tokens.append(joined["token"])
        self.path = f"/v1/tables/{self.table_id}"

    def auth(self, seat: int, **headers: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}", **headers}

    def get(self, node: Served, seat: int, **headers: str) -> requests.Response:
        return requests.get(node.url(self.path), headers=self.auth(seat, **headers), timeout=40)

    def pass_three(self, node: Served, seat: int, **headers: str) -> requests.Response:
        hand = self.get(node, seat).json()["you"]["hand"]
        response = requests.post(node.url(self.path + "/passes"), json={"cards": hand[:3]}, headers=self.auth(seat, **headers), timeout=10)
        assert response.status_code in (200, 201), response.text
        return response

"""The worker process: `copas worker` delivers until told to stop, then exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from api.service.delivery import run_worker

ROOT = Path(__file__).resolve().parents[2]


def wait_for(condition: Any, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_run_worker_delivers_then_stops_cleanly(table: Any, hooks: Any, receiver: Any, app_store: Any, settings: Any, clock: Any) -> None:
    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])
    stop = threading.Event()
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(run_worker(settings, store=app_store, clock=clock, stop=stop, idle_seconds=0.05)))

    worker.start()
    delivered = wait_for(lambda: receiver.accepted(0))
    stop.set()
    worker.join(10)

    assert delivered and not worker.is_alive() and result == [0]
    assert receiver.accepted(0)[0].payload["data"]["action"] == "pass"


def test_the_worker_command_delivers_and_exits_0_on_sigterm(table: Any, hooks: Any, receiver: Any, database_url: str) -> None:
    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])
    env = {**os.environ, "DATABASE_URL": database_url, "COPAS_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"}

    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "worker"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        delivered = wait_for(lambda: receiver.accepted(0))
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert delivered, output
    assert process.returncode == 0, output
    assert "delivered msg_" in output and "stopped" in output
    assert len(receiver.accepted(0)) == 1 and receiver.accepted(0)[0].verified

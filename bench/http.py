"""HTTP benchmark: many tables played at once through the public API under gunicorn.

    DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/http.py

Creates a fresh database `copas_bench` on that server, starts `copas serve`
(gunicorn, gthread) on 127.0.0.1:8765, and plays --tables matches at once,
each with four human seats driven by one client thread (a new connection
for each poll-and-move cycle). Prints moves per second and p50/p99 latencies of plays, of full
views (all, and late in the match: some seat at 75+), and of 304 views.
Without DATABASE_URL it runs on an SQLite file (slower writes, one writer).
"""

from __future__ import annotations

import sys

# This file is named http.py (the issue fixes the name): keep its folder off the
# import path so that `http.client` below is the standard library's.
sys.path[:] = [entry for entry in sys.path if not entry.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from .harness import percentile, prepare_database

ROOT = Path(__file__).resolve().parents[1]
PORT = 8765


class Client:
    def __init__(self) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)

    def call(self, method: str, path: str, body: object = None, headers: dict[str, str] | None = None) -> tuple[int, dict, dict, float]:
        data = None if body is None else json.dumps(body)
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        start = time.perf_counter()
        self.conn.request(method, path, body=data, headers=all_headers)
        response = self.conn.getresponse()
        raw = response.read()
        elapsed = time.perf_counter() - start
        return response.status, (json.loads(raw) if raw else {}), dict(response.getheaders()), elapsed


def play_one_match(target: int, samples: dict[str, list[float]], lock: threading.Lock) -> int:
    client = Client()
    status, created, _, _ = client.call("POST", "/v1/tables", {"name": "Ana", "target_score": target})
    assert status == 201, created
    table_id = created["table_id"]
    tokens = [created["token"]]
    for name in ("Bruno", "Carla", "Davi"):
        status, joined, _, _ = client.call("POST", f"/v1/invites/{created['invite_code']}/join", {"name": name})
        tokens.append(joined["token"])
    auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
    local: dict[str, list[float]] = {key: [] for key in samples}
    moves = 0
    while True:
        # A fresh connection for each poll-and-move, as independent frontends make
        # them: kept-alive connections would all stay with the gunicorn worker
        # that happened to accept them, and leave the other workers idle.
        client.conn.close()
        client = Client()
        status, view, headers, elapsed = client.call("GET", f"/v1/tables/{table_id}", headers=auth[0])
        local["view"].append(elapsed)
        if max(seat["score"] for seat in view["seats"]) >= 75:
            local["view_late"].append(elapsed)
        status, _, _, elapsed = client.call("GET", f"/v1/tables/{table_id}", headers={**auth[0], "If-None-Match": headers["ETag"]})
        assert status == 304
        local["not_modified"].append(elapsed)
        if view["status"] == "finished":
            break
        for seat in view["awaiting"]:
            _, mine, _, _ = client.call("GET", f"/v1/tables/{table_id}", headers=auth[seat])
            moves_available = mine["you"]["legal_moves"]
            if view["status"] == "passing":
                status, body, _, elapsed = client.call("POST", f"/v1/tables/{table_id}/passes", {"cards": moves_available[:3]}, auth[seat])
                local["pass"].append(elapsed)
            else:
                status, body, _, elapsed = client.call("POST", f"/v1/tables/{table_id}/plays", {"card": moves_available[-1]}, auth[seat])
                local["play"].append(elapsed)
            assert status == 201, body
            moves += 1
    with lock:
        for key, values in local.items():
            samples[key].extend(values)
    return moves






def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=8, help="matches played at once")
    parser.add_argument("--target", type=int, default=100, choices=(50, 100))
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1), help="gunicorn workers (copas serve's default)")
    args = parser.parse_args()

    url = prepare_database(os.environ.get("DATABASE_URL"), "copas_bench")
    env = {**os.environ, "DATABASE_URL": url, "COPAS_RATE_LIMIT": "0"}  # a load test, not a client
    copas = str(Path(sys.executable).with_name("copas"))
    server = subprocess.Popen(
        [copas, "serve", "--port", str(PORT), "--workers", str(args.workers), "--no-dispatcher"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                if Client().call("GET", "/v1/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        samples: dict[str, list[float]] = {"view": [], "view_late": [], "not_modified": [], "pass": [], "play": []}
        lock = threading.Lock()
        counts: list[int] = []
        start = time.perf_counter()
        threads = [
            threading.Thread(target=lambda: counts.append(play_one_match(args.target, samples, lock)))
            for _ in range(args.tables)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=30)

    moves = sum(counts)
    print(f"database: {url.split('://')[0]}, {args.workers} gunicorn workers (gthread), {args.tables} tables at once, target {args.target}")
    print(f"{moves} moves in {wall:.1f} s: {moves / wall:.0f} moves/s (each move also reads views; see below)")
    for key, label in (
        ("play", "play (POST)"),
        ("pass", "pass (POST)"),
        ("view", "full view (GET)"),
        ("view_late", "full view, late in the match"),
        ("not_modified", "304 view (If-None-Match)"),
    ):
        values = samples[key]
        if values:
            print(f"  {label:32s} n={len(values):6d}  p50 {1000 * percentile(values, 0.5):6.1f} ms  p99 {1000 * percentile(values, 0.99):6.1f} ms  median {statistics.median(values) * 1000:6.1f} ms")
    print("The machine is noisy: compare medians and ratios across runs, not single figures.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

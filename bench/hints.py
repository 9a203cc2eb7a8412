"""Hints and strong bots through `copas serve`: hint latency, and a human's move at a strong bot's table.

    DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres .venv/bin/python -m bench.hints

Creates a fresh database `copas_bench_hints` on that server (an SQLite file
without DATABASE_URL) and starts `copas serve` on a free loopback port, with
`copas worker` (it plays the strong bots). In one run, side by side:

1. **Hints**: --clients threads each play a match of four human seats by
   asking `GET .../hint` for every awaited seat and doing what it says;
   p50/p95 of the hint beside the full view (`GET /v1/tables/{id}`) of the
   same run.
2. **A human's move at a strong bot's table**: --tables tables of one human
   and three strong bots; the human waits for its turn (`?wait=`) and plays;
   p50/p99 of its POST beside the same POST at tables of four humans (the
   baseline: a move with no bot work) and at basic-bot tables (bots inline).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from .harness import free_port, percentile, prepare_database

ROOT = Path(__file__).resolve().parents[1]


class Client:
    def __init__(self, port: int) -> None:
        self.port = port

    def call(self, method: str, path: str, body: object = None, headers: dict[str, str] | None = None) -> tuple[int, dict, dict, float]:
        # A connection per request, as independent frontends make them (see bench/http.py).
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = None if body is None else json.dumps(body)
        start = time.perf_counter()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        raw = response.read()
        elapsed = time.perf_counter() - start
        conn.close()
        return response.status, (json.loads(raw) if raw else {}), dict(response.getheaders()), elapsed


def new_table(client: Client, humans: int, level: str | None) -> tuple[str, list[dict[str, str]]]:
    status, created, _, _ = client.call("POST", "/v1/tables", {"name": "Ana", "target_score": 50})
    assert status == 201, created
    table_id, tokens = created["table_id"], [created["token"]]
    for name in ("Bruno", "Carla", "Davi")[: humans - 1]:
        tokens.append(client.call("POST", f"/v1/invites/{created['invite_code']}/join", {"name": name})[1]["token"])
    auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
    if level is not None:
        status, body, _, _ = client.call("POST", f"/v1/tables/{table_id}/bots", {"level": level}, auth[0])
        assert status == 201, body
    return table_id, auth


def follow_hints(client: Client, moves: int, samples: dict[str, list[float]], lock: threading.Lock) -> None:
    table_id, auth = new_table(client, 4, None)
    local: dict[str, list[float]] = {"hint": [], "view": []}
    for _ in range(moves):
        status, view, _, elapsed = client.call("GET", f"/v1/tables/{table_id}", headers=auth[0])
        local["view"].append(elapsed)
        if view["status"] == "finished":
            break
        for seat in view["awaiting"]:
            status, hint, _, elapsed = client.call("GET", f"/v1/tables/{table_id}/hint", headers=auth[seat])
            assert status == 200, hint
            local["hint"].append(elapsed)
            action, body = ("passes", {"cards": hint["cards"]}) if hint["action"] == "pass" else ("plays", {"card": hint["cards"][0]})
            status, answer, _, _ = client.call("POST", f"/v1/tables/{table_id}/{action}", body, auth[seat])
            assert status == 201, answer
    with lock:
        for key, values in local.items():
            samples[key].extend(values)


def human_moves(client: Client, humans: int, level: str | None, moves: int, samples: list[float], lock: threading.Lock) -> None:
    """Play seat 0 (and any other human seat) for `moves` moves; record seat 0's play POSTs."""
    table_id, auth = new_table(client, humans, level)
    local: list[float] = []
    etag = None
    while len(local) < moves:
        headers = {**auth[0], **({"If-None-Match": etag} if etag else {})}
        status, view, response_headers, _ = client.call("GET", f"/v1/tables/{table_id}?wait=10", headers=headers)
        if status == 304:
            continue
        etag = response_headers.get("ETag")
        if view["status"] == "finished":
            table_id, auth = new_table(client, humans, level)
            etag = None
            continue
        for seat in view["awaiting"]:
            if seat >= humans:
                continue  # a bot's: the worker (or the command) plays it
            mine = client.call("GET", f"/v1/tables/{table_id}", headers=auth[seat])[1]
            legal = mine["you"]["legal_moves"]
            if view["status"] == "passing":
                client.call("POST", f"/v1/tables/{table_id}/passes", {"cards": legal[:3]}, auth[seat])
                continue
            status, answer, _, elapsed = client.call("POST", f"/v1/tables/{table_id}/plays", {"card": legal[0]}, auth[seat])
            assert status == 201, answer
            if seat == 0:
                local.append(elapsed)
    with lock:
        samples.extend(local)








def run_threads(count: int, target: object, *args: object) -> None:
    threads = [threading.Thread(target=target, args=args) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=2, help="matches played by hints at once")
    parser.add_argument("--hint-moves", type=int, default=40, help="poll-and-move cycles per hint client")
    parser.add_argument("--tables", type=int, default=2, help="tables of each kind in part 2")
    parser.add_argument("--moves", type=int, default=30, help="seat 0's plays measured per table in part 2")
    parser.add_argument("--moves-only", action="store_true", help="part 2 alone (e.g. against an older server on PYTHONPATH)")
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1), help="gunicorn workers (copas serve's default)")
    args = parser.parse_args()

    url = prepare_database(os.environ.get("DATABASE_URL"), "copas_bench_hints")
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "COPAS_RATE_LIMIT": "0"}
    copas = str(Path(sys.executable).with_name("copas"))
    server = subprocess.Popen(
        [copas, "serve", "--port", str(port), "--workers", str(args.workers)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = Client(port)
    lock = threading.Lock()
    try:
        for _ in range(150):
            try:
                if client.call("GET", "/v1/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        hints: dict[str, list[float]] = {"hint": [], "view": []}
        if not args.moves_only:
            run_threads(args.clients, follow_hints, client, args.hint_moves, hints, lock)
        plays: dict[str, list[float]] = {"humans": [], "basic": [], "strong": []}
        for kind, humans, level in (("humans", 4, None), ("basic", 1, "basic"), ("strong", 1, "strong")):
            run_threads(args.tables, human_moves, client, humans, level, args.moves, plays[kind], lock)
    finally:
        server.terminate()
        server.wait(timeout=30)

    print(f"database: {url.split('://')[0]}, copas serve with {args.workers} workers and copas worker")
    if not args.moves_only:
        print(f"1. hints, {args.clients} clients at once")
    for key, label in (("hint", "GET .../hint"), ("view", "GET /v1/tables/{id} (baseline)")):
        values = hints[key]
        if values:
            print(f"  {label:34s} n={len(values):5d}  p50 {1000 * percentile(values, 0.5):6.1f} ms  p95 {1000 * percentile(values, 0.95):6.1f} ms")
    print(f"2. seat 0's play POST, {args.tables} tables of each kind at once")
    base = statistics.median(plays["humans"])
    for key, label in (("humans", "four humans (baseline)"), ("basic", "three basic bots (inline)"), ("strong", "three strong bots (worker)")):
        values = plays[key]
        ratio = statistics.median(values) / base
        print(f"  {label:34s} n={len(values):5d}  p50 {1000 * percentile(values, 0.5):6.1f} ms  p99 {1000 * percentile(values, 0.99):6.1f} ms  median/baseline {ratio:4.2f}")
    print("The machine is noisy: compare medians and ratios across runs, not single figures.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

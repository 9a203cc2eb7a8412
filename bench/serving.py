"""Serving benchmark: copas against a bare flask-smorest app, side by side, in one run.

    DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres .venv/bin/python -m bench.serving

Makes a fresh database `copas_bench_serving`, then starts on it a bare
flask-smorest app (bench/bare.py) and `copas serve`, both under gunicorn with
the same settings (gevent workers, --workers N), and measures:

  part 1, each --runs times, medians and ratios (wrk, --connections, --seconds):
    bare GET /ping           vs  GET /v1/tables/{id} answered 304
    bare GET /ping           vs  GET /v1/tables/{id}, full view, late in a 100-point match
    bare POST /rows (1 INSERT) vs move POST, --tables tables played at once
      (a Python client thread per table: GET the mover's view, POST the move;
       the bare POST is driven by the same threads, for a like-for-like rate)
    as requests/s and CPU ms per request (server processes and the PostgreSQL
    backends of the benchmark database, from /proc), and latency p99;
  part 2: move p99 (same move load) with no waiters, then with N waiters per
    --waiters (half long polls `?wait=30`, half streams, on idle tables, from
    raw sockets), and the server's memory per 1,000 waiters; errors counted;
  part 3: a human against three strong bots (`copas worker` plays them): the
    latency of the human's move POSTs.

wrk (`apt-get install wrk`) is the load generator of part 1's GETs; the
benchmark never runs in CI.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from .bare import create_schema
from .harness import free_port, percentile, prepare_database

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "copas_bench_serving"
TICKS = os.sysconf("SC_CLK_TCK")


# -------------------------------------------------------------------------- processes




def descendants(pid: int) -> list[int]:
    found, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found.append(child)
            frontier.append(child)
    return found


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


class Server:
    def __init__(self, name: str, command: list[str], env: dict[str, str], port: int) -> None:
        self.name, self.port = name, port
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/ping" if name == "bare" else "/v1/health")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"{name} did not start")
            time.sleep(0.2)

    def pids(self) -> list[int]:
        return descendants(self.process.pid)

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGKILL)


class Postgres:
    """The backends of the benchmark's database (other databases' load is left out)."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)

    def pids(self) -> list[int]:
        rows = self.conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (DATABASE,)).fetchall()
        return [row[0] for row in rows]


class Cpu:
    """CPU seconds of a server and the database backends over a span."""

    def __init__(self, server: Server, pg: Postgres) -> None:
        self.server, self.pg = server, pg

    def __enter__(self) -> Cpu:
        self.pids = self.server.pids() + self.pg.pids()
        self.start = cpu_seconds(self.pids)
        return self

    def __exit__(self, *_: Any) -> None:
        self.pids = list(dict.fromkeys(self.pids + self.pg.pids()))
        self.seconds = cpu_seconds(self.pids) - self.start


# -------------------------------------------------------------------------- clients


class Client:
    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str], float]:
        data = None if body is None else json.dumps(body)
        started = time.perf_counter()
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        elapsed = time.perf_counter() - started
        return response.status, (json.loads(raw) if raw else None), dict(response.getheaders()), elapsed


class Table:
    """A table of four humans, played through the API."""

    def __init__(self, port: int, target: int = 100) -> None:
        self.client = Client(port)
        _, created, _, _ = self.client.call("POST", "/v1/tables", {"name": "Ana", "target_score": target})
        self.id = created["table_id"]
        self.path = f"/v1/tables/{self.id}"
        self.auth = [{"Authorization": f"Bearer {created['token']}"}]
        for name in ("Bruno", "Carla", "Davi"):
            _, joined, _, _ = self.client.call("POST", f"/v1/invites/{created['invite_code']}/join", {"name": name})
            self.auth.append({"Authorization": f"Bearer {joined['token']}"})
        self.next_seat = 0  # the seat whose move comes next, as the last answer said

    def move(self) -> tuple[int, float] | None:
        """One move, as a player makes it: its view (GET), then its POST: (status, POST seconds).

        The seat to act comes from the previous move's answer (the mover's new view
        names `turn` and `awaiting`), so each move costs one GET and one POST.
        """
        seat = self.next_seat
        _, mine, _, _ = self.client.call("GET", self.path, headers=self.auth[seat])
        if mine["status"] == "finished":
            status, answer, _, elapsed = self.client.call("POST", self.path + "/rematch", headers=self.auth[seat])
        elif seat not in mine["awaiting"]:  # not this seat's move after all (another client moved)
            self.next_seat = mine["turn"] if mine["turn"] is not None else mine["awaiting"][0]
            return self.move()
        elif mine["status"] == "passing":
            status, answer, _, elapsed = self.client.call("POST", self.path + "/passes", {"cards": mine["you"]["legal_moves"][-3:]}, self.auth[seat])
        else:
            status, answer, _, elapsed = self.client.call("POST", self.path + "/plays", {"card": mine["you"]["legal_moves"][-1]}, self.auth[seat])
        if status == 201:
            awaiting = answer["awaiting"]
            self.next_seat = answer["turn"] if answer["turn"] is not None else (awaiting[0] if awaiting else 0)
        return status, elapsed

    def play_until_late(self) -> None:
        """Play (high cards first: points flow) until some seat has 75+ points of 100."""
        while True:
            _, view, _, _ = self.client.call("GET", self.path, headers=self.auth[0])
            if max(seat["score"] for seat in view["seats"]) >= 75 or view["status"] == "finished":
                return
            self.move()




def wrk(port: int, path: str, headers: dict[str, str], seconds: float, connections: int) -> dict[str, float]:
    command = ["wrk", "-t2", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    done = subprocess.run([*command, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True)
    if done.returncode != 0:  # the server is gone: say what wrk saw
        raise RuntimeError(f"wrk failed on {path} ({done.returncode}): {done.stdout.strip()} {done.stderr.strip()}")
    output = done.stdout
    requests = int(re.search(r"(\d+) requests in", output).group(1))  # type: ignore[union-attr]
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    return {
        "requests": requests,
        "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),  # type: ignore[union-attr]
        "p99_ms": float(p99.group(1)) * scale[p99.group(2)] if p99 else float("nan"),
        "errors": int(non_2xx.group(1)) if non_2xx else 0,
    }


def measured_wrk(server: Server, pg: Postgres, path: str, headers: dict[str, str], args: argparse.Namespace) -> dict[str, float]:
    with Cpu(server, pg) as cpu:
        result = wrk(server.port, path, headers, args.seconds, args.connections)
    result["cpu_ms"] = cpu.seconds * 1000 / max(result["requests"], 1)
    return result


def drive(tables: list[Table], seconds: float, action: str, bare_port: int | None = None) -> dict[str, Any]:
    """Each table's thread acts for `seconds`: moves (or bare POSTs); latencies and counts."""
    latencies: list[float] = []
    errors = [0]
    done = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def run(table: Table) -> None:
        client = Client(bare_port) if bare_port else None
        local: list[float] = []
        bad = count = 0
        while time.monotonic() < stop:
            if client is not None:
                status, _, _, elapsed = client.call("POST", "/rows", {"body": "x" * 40})
            else:
                moved = table.move()
                if moved is None:
                    continue
                status, elapsed = moved
            count += 1
            bad += status not in (200, 201)
            local.append(elapsed)
        with lock:
            latencies.extend(local)
            errors[0] += bad
            done[0] += count

    threads = [threading.Thread(target=run, args=(table,)) for table in tables]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    return {"rate": done[0] / elapsed, "count": done[0], "p50_ms": percentile(latencies, 0.5) * 1000, "p99_ms": percentile(latencies, 0.99) * 1000, "errors": errors[0]}


def measured_drive(server: Server, pg: Postgres, tables: list[Table], args: argparse.Namespace, bare_port: int | None = None) -> dict[str, Any]:
    with Cpu(server, pg) as cpu:
        result = drive(tables, args.seconds, "post", bare_port)
    result["cpu_ms"] = cpu.seconds * 1000 / max(result["count"], 1)
    return result


# -------------------------------------------------------------------------- waiters


def open_waiters(port: int, idle: list[Table], count: int) -> list[socket.socket]:
    sockets = []
    for n in range(count):
        table = idle[n % len(idle)]
        seat = n % 4
        token = table.auth[seat]["Authorization"]
        if n % 2:
            request = f"GET {table.path}/stream HTTP/1.1\r\nHost: x\r\nAuthorization: {token}\r\nAccept: text/event-stream\r\n\r\n"
        else:
            etag = table.etags[seat]
            request = f"GET {table.path}?wait=30 HTTP/1.1\r\nHost: x\r\nAuthorization: {token}\r\nIf-None-Match: {etag}\r\n\r\n"
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall(request.encode())
        sockets.append(client)
    return sockets


def waiter_errors(sockets: list[socket.socket]) -> int:
    """Waiters answered with anything but a stream (200) or nothing yet (a waiting long poll)."""
    bad = 0
    for client in sockets:
        client.setblocking(False)
        try:
            head = client.recv(12)
        except BlockingIOError:
            continue  # still waiting: fine
        except OSError:
            bad += 1
            continue
        if head != b"HTTP/1.1 200":
            bad += 1
    return bad


# -------------------------------------------------------------------------- a strong bot's table


def strong_bot_table(port: int, env: dict[str, str], bin_dir: Path, moves: int) -> dict[str, Any]:
    """A human against three strong bots (played by `copas worker`): the human's POST latency."""
    worker = subprocess.Popen([str(bin_dir / "copas"), "worker"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    latencies: list[float] = []
    errors = 0
    try:
        client = Client(port)
        _, created, _, _ = client.call("POST", "/v1/tables", {"name": "Ana"})
        path, auth = f"/v1/tables/{created['table_id']}", {"Authorization": f"Bearer {created['token']}"}
        client.call("POST", path + "/bots", {"level": "strong"}, auth)
        etag = ""
        deadline = time.monotonic() + 300
        while len(latencies) < moves and time.monotonic() < deadline:
            status, view, headers, _ = client.call("GET", path + "?wait=10", headers={**auth, "If-None-Match": etag})
            if status == 304:
                continue
            etag = headers.get("ETag", "")
            you = view["you"]
            if view["status"] == "finished":
                break
            if not you["legal_moves"] or 0 not in view["awaiting"]:
                continue
            if view["status"] == "passing":
                status, _, _, elapsed = client.call("POST", path + "/passes", {"cards": you["legal_moves"][-3:]}, auth)
            else:
                status, _, _, elapsed = client.call("POST", path + "/plays", {"card": you["legal_moves"][0]}, auth)
            errors += status != 201
            latencies.append(elapsed)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=20)
    return {"human_moves": len(latencies), "p50_ms": percentile(latencies, 0.5) * 1000, "p99_ms": percentile(latencies, 0.99) * 1000, "errors": errors}


# -------------------------------------------------------------------------- main




def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of both servers")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0, help="each measurement")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections")
    parser.add_argument("--tables", type=int, default=8, help="tables played at once for the move figures")
    parser.add_argument("--waiters", default="1000,5000", help="waiter counts of part 2")
    parser.add_argument("--strong-moves", type=int, default=60, help="human moves at a strong bots' table (part 3)")
    parser.add_argument("--parts", default="1,2,3", help="which parts to run (comma-separated)")
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL", "")
    if "postgresql" not in base:
        parser.error("DATABASE_URL must name a PostgreSQL server")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # thousands of waiters' sockets

    url = prepare_database(base, DATABASE)
    env = {**os.environ, "DATABASE_URL": url, "BENCH_DATABASE_URL": url, "COPAS_RATE_LIMIT": "0"}
    bin_dir = Path(sys.executable).parent
    bare_port, copas_port = free_port(), free_port()
    gunicorn = [str(bin_dir / "gunicorn"), "-k", "gevent", "-w", str(args.workers), "--worker-connections", "10000", "--timeout", "30",
                "--graceful-timeout", "10", "--keep-alive", "5", "--backlog", "4096", "--no-control-socket", "-b", f"127.0.0.1:{bare_port}", "bench.bare:app"]
    create_schema(url)
    bare = Server("bare", gunicorn, env, bare_port)
    copas = Server("copas", [str(bin_dir / "copas"), "serve", "--port", str(copas_port), "--workers", str(args.workers), "--no-dispatcher", "--no-access-log"], env, copas_port)
    pg = Postgres(url)
    report: dict[str, Any] = {"workers": args.workers, "runs": args.runs, "seconds": args.seconds, "connections": args.connections, "tables": args.tables}
    try:
        print("setting up: a table late in a 100-point match, and tables for moves", file=sys.stderr)
        late = Table(copas_port)
        late.play_until_late()
        _, view, headers, _ = late.client.call("GET", late.path, headers=late.auth[1])
        etag = headers["ETag"]
        movers = [Table(copas_port) for _ in range(args.tables)]
        parts = {int(part) for part in args.parts.split(",") if part}
        if 1 in parts:
            rows: dict[str, list[dict[str, float]]] = {k: [] for k in ("bare_get", "not_modified", "full_view", "bare_post", "move")}
            for run in range(args.runs):
                print(f"part 1, run {run + 1}/{args.runs}", file=sys.stderr)
                rows["bare_get"].append(measured_wrk(bare, pg, "/ping", {}, args))
                rows["not_modified"].append(measured_wrk(copas, pg, late.path, {**late.auth[1], "If-None-Match": etag}, args))
                rows["full_view"].append(measured_wrk(copas, pg, late.path, late.auth[1], args))
                rows["bare_post"].append(measured_drive(bare, pg, movers, args, bare_port=bare_port))
                rows["move"].append(measured_drive(copas, pg, movers, args))
            medians = {name: {key: statistics.median(r[key] for r in runs) for key in ("rate", "cpu_ms", "p99_ms", "errors")} for name, runs in rows.items()}
            report["part1"] = medians
            report["part1_runs"] = {name: [{key: r[key] for key in ("rate", "cpu_ms", "p99_ms")} for r in runs] for name, runs in rows.items()}
            report["ratios"] = {
                "304 / bare GET, rate": ratio(medians["not_modified"]["rate"], medians["bare_get"]["rate"]),
                "304 / bare GET, CPU per request (bare / 304)": ratio(medians["bare_get"]["cpu_ms"], medians["not_modified"]["cpu_ms"]),
                "full view / bare GET, rate": ratio(medians["full_view"]["rate"], medians["bare_get"]["rate"]),
                "full view / bare GET, CPU per request (bare / view)": ratio(medians["bare_get"]["cpu_ms"], medians["full_view"]["cpu_ms"]),
                "move / bare POST, rate": ratio(medians["move"]["rate"], medians["bare_post"]["rate"]),
                "move / bare POST, CPU per request (bare / move)": ratio(medians["bare_post"]["cpu_ms"], medians["move"]["cpu_ms"]),
            }
        if 2 in parts:
            report["part2"] = waiters_part(copas, movers, args)
        if 3 in parts:
            report["part3"] = strong_bot_table(copas_port, env, bin_dir, args.strong_moves)
    finally:
        copas.stop()
        bare.stop()
    print(json.dumps(report, indent=2, default=lambda value: round(value, 3)))
    return 0


def waiters_part(copas: Server, movers: list[Table], args: argparse.Namespace) -> dict[str, Any]:
    """Part 2: move p99 and the server's memory with N waiters on idle tables."""
    idle = [Table(copas.port) for _ in range(50)]
    for table in idle:
        table.etags = [table.client.call("GET", table.path, headers=auth)[2]["ETag"] for auth in table.auth]  # type: ignore[attr-defined]
    part2: dict[str, Any] = {}
    print("part 2: moves without waiters", file=sys.stderr)
    part2["none"] = drive(movers, args.seconds * 2, "move")
    for count in (int(n) for n in args.waiters.split(",") if n):
        print(f"part 2: {count} waiters", file=sys.stderr)
        before = rss_mb(copas.pids())
        sockets = open_waiters(copas.port, idle, count)
        time.sleep(3)  # every waiter registered
        during = rss_mb(copas.pids())
        moves = drive(movers, args.seconds * 2, "move")
        moves["waiter_errors"] = waiter_errors(sockets)
        moves["rss_mb_before"], moves["rss_mb_with"] = before, during
        moves["mb_per_1000_waiters"] = (during - before) * 1000 / count
        moves["p99_vs_none"] = ratio(moves["p99_ms"], part2["none"]["p99_ms"])
        for client in sockets:
            client.close()
        time.sleep(3)
        part2[str(count)] = moves
    return part2


if __name__ == "__main__":
    random.seed(1)
    sys.exit(main())

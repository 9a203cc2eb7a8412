"""The real server (gunicorn, `copas serve`) on a private PostgreSQL, while things break.

Tables of one human and three basic bots are played by client threads that
send every move with an Idempotency-Key (the seat and the version it saw) and
retry it with the same key on 503, on a dropped connection or on a timeout.
Meanwhile a worker is killed (-9), PostgreSQL is restarted (fast, immediate)
or frozen (SIGSTOP) past the timeouts. After each:

- no request was answered 500;
- every answer to a key was the same (a retry got the first answer);
- every acknowledged move is in the log, once: each of the human's events
  follows the version its key was sent at, with the card sent under it;
- the tables go on (moves are acknowledged after the fault), and
  `copas audit --all` passes.

A stream and a long poll left open across a PostgreSQL restart wake with the
first move made after it.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
import sseclient

from .private_postgres import PrivatePostgres, binaries, free_port

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("faults-server")]

BIN = binaries()
if BIN is None:
    pytest.skip("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin: the server fault tests need a private server", allow_module_level=True)

COPAS = str(Path(sys.executable).with_name("copas"))
TABLES = 3
CLIENT_TIMEOUT = 15.0


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    database_url: str
    log: Path

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None, timeout: float = CLIENT_TIMEOUT) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            payload = None if body is None else json.dumps(body).encode()
            sent = {"Content-Type": "application/json", **(headers or {})} if payload is not None else dict(headers or {})
            connection.request(method, path, body=payload, headers=sent)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def workers(self) -> list[int]:
        listed = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout.split()
        own = Path(f"/proc/{self.process.pid}/cmdline").read_bytes()
        return [int(pid) for pid in listed if _cmdline(int(pid)) == own]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@pytest.fixture(scope="module")
def postgres() -> Iterator[PrivatePostgres]:
    server = PrivatePostgres(BIN)  # type: ignore[arg-type]
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def server(postgres: PrivatePostgres, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    env = {**os.environ, "DATABASE_URL": postgres.url, "COPAS_RATE_LIMIT": "0"}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [COPAS, "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--no-dispatcher"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = Server(port, process, postgres.url, log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if running.request("GET", "/v1/health", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield running
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@dataclass
class Sent:
    """One intended move and every answer its key got."""

    key: str
    version: int  # the version the move was decided at
    action: str  # passes | plays
    cards: tuple[str, ...]
    answers: list[tuple[int, bytes]] = field(default_factory=list)


class Player(threading.Thread):
    """Plays seat 0 of a table (three basic bots do the rest), retrying each move with its key."""

    def __init__(self, server: Server, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.stop = stop
        self.sent: dict[str, Sent] = {}
        self.errors: list[str] = []
        self.acknowledged_at: list[float] = []
        self.table_id, self.token = self._create()

    def _create(self) -> tuple[str, str]:
        status, _, body = self.server.request("POST", "/v1/tables", {"name": "Ana"})
        assert status == 201, body
        created = json.loads(body)
        auth = {"Authorization": f"Bearer {created['token']}"}
        status, _, body = self.server.request("POST", f"/v1/tables/{created['table_id']}/bots", {"level": "basic"}, auth)
        assert status == 201, body
        return created["table_id"], created["token"]

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def _call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, bytes] | None:
        """One request; None when the connection failed or timed out (the answer is unknown)."""
        try:
            status, response_headers, data = self.server.request(method, path, body, {**self.auth, **(headers or {})})
        except (OSError, http.client.HTTPException):
            return None
        if status >= 500 and status != 503:
            self.errors.append(f"{method} {path} -> {status}: {data[:300]!r}")
        if status == 503:
            problem = json.loads(data)
            if problem.get("code") != "unavailable" or "retry-after" not in response_headers:
                self.errors.append(f"a 503 that is not 'unavailable' with Retry-After: {data[:300]!r}")
        return status, data

    def run(self) -> None:
        while not self.stop.is_set():
            got = self._call("GET", f"/v1/tables/{self.table_id}")
            if got is None or got[0] != 200:
                time.sleep(0.1)
                continue
            view = json.loads(got[1])
            if view["status"] == "finished":
                return
            you = view["you"]
            if not you["legal_moves"]:
                time.sleep(0.01)
                continue
            if view["status"] == "passing":
                action, cards, body = "passes", tuple(you["legal_moves"][:3]), {"cards": you["legal_moves"][:3]}
            else:
                action, cards, body = "plays", (you["legal_moves"][0],), {"card": you["legal_moves"][0]}
            move = Sent(f"0-{view['version']}", view["version"], action, cards)
            self.sent[move.key] = move
            self._send(move, body)

    def _send(self, move: Sent, body: dict[str, Any]) -> None:
        """Send until answered (anything but 503 or a lost connection), with the same key each time."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = self._call("POST", f"/v1/tables/{self.table_id}/{move.action}", body, {"Idempotency-Key": move.key})
            if got is None or got[0] == 503:
                time.sleep(0.2)
                continue
            move.answers.append(got)
            if got[0] == 201:
                self.acknowledged_at.append(time.monotonic())
            # Retry once more on purpose: a retried key must get its first answer again.
            again = self._call("POST", f"/v1/tables/{self.table_id}/{move.action}", body, {"Idempotency-Key": move.key})
            if again is not None and again[0] != 503:
                move.answers.append(again)
            return
        self.errors.append(f"key {move.key} never answered")

    def events(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        after = 0
        while True:
            got = self._call("GET", f"/v1/tables/{self.table_id}/events?after={after}&limit=500")
            assert got is not None and got[0] == 200, got
            page = json.loads(got[1])
            events.extend(page["events"])
            if page["next_after"] == after:
                return events
            after = page["next_after"]


def play_through(server: Server, fault: Any) -> list[Player]:
    """Play TABLES tables, apply `fault()` after a warm-up, play on, and stop."""
    stop = threading.Event()
    players = [Player(server, stop) for _ in range(TABLES)]
    for player in players:
        player.start()
    time.sleep(1.5)
    fault()
    healed = time.monotonic()
    deadline = healed + 20
    while time.monotonic() < deadline and not all(any(t > healed + 0.5 for t in p.acknowledged_at) or not p.is_alive() for p in players):
        time.sleep(0.2)
    time.sleep(1.0)
    stop.set()
    for player in players:
        player.join(timeout=CLIENT_TIMEOUT * 2 + 5)
    for player in players:
        assert not player.errors, player.errors
        assert any(t > healed for t in player.acknowledged_at) or not player.is_alive(), "the table did not go on after the fault"
    return players


def assert_each_acknowledged_move_is_in_the_log_once(players: list[Player]) -> None:
    for player in players:
        for move in player.sent.values():
            kept = {answer for answer in move.answers}
            assert len(kept) <= 1, f"key {move.key} got different answers: {[(s, b[:120]) for s, b in kept]}"
        human = [e for e in player.events() if e["seat"] == 0 and e["type"] in ("card_played", "pass_chosen")]
        applied = {}
        for event in human:
            key = f"0-{event['seq'] - 1}"
            assert key in player.sent, f"the human's event {event['seq']} follows a version no move was sent at"
            move = player.sent[key]
            played = (event["data"]["card"],) if event["type"] == "card_played" else None
            if played is not None:
                assert played == move.cards, (event, move)
            applied[key] = event
        for move in player.sent.values():
            if any(status == 201 for status, _ in move.answers):
                assert move.key in applied, f"acknowledged move {move.key} is not in the log"


def assert_audit_passes(server: Server) -> None:
    audit = subprocess.run([COPAS, "audit", "--all"], env={**os.environ, "DATABASE_URL": server.database_url}, capture_output=True, text=True, timeout=60)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]


def test_a_worker_killed_in_the_middle_of_moves_loses_and_doubles_nothing(server: Server) -> None:
    def kill_a_worker() -> None:
        workers = server.workers()
        assert workers, "no gunicorn worker found"
        os.kill(workers[0], signal.SIGKILL)

    players = play_through(server, kill_a_worker)
    assert_each_acknowledged_move_is_in_the_log_once(players)
    assert_audit_passes(server)
    # /metrics sums over the workers, the killed one included: it counted at least the 201s the clients saw.
    seen = sum(status == 201 for p in players for move in p.sent.values() for status, _ in move.answers)
    assert moves_answered_201(server) >= seen > 0


def moves_answered_201(server: Server) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    status, _, body = server.request("GET", "/metrics")
    assert status == 200
    return sum(
        sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
        if sample.name == "copas_http_requests_total"
        and sample.labels["status"] == "201"
        and sample.labels["route"] in ("/v1/tables/<table_id>/plays", "/v1/tables/<table_id>/passes")
    )


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_a_postgresql_restart_under_load_loses_and_doubles_nothing(server: Server, postgres: PrivatePostgres, mode: str) -> None:
    players = play_through(server, lambda: postgres.restart(mode))
    assert_each_acknowledged_move_is_in_the_log_once(players)
    assert_audit_passes(server)


def test_a_frozen_postgresql_gets_503s_and_a_health_answer_not_a_hang(server: Server, postgres: PrivatePostgres) -> None:
    health: list[int] = []

    def freeze_past_the_timeouts() -> None:
        frozen = postgres.freeze()
        try:
            time.sleep(1.0)
            health.append(server.request("GET", "/v1/health", timeout=5)[0])  # answers while frozen
            time.sleep(6.5)  # past the 6 s answer deadline and the 3 s connect timeout
        finally:
            postgres.thaw(frozen)

    players = play_through(server, freeze_past_the_timeouts)
    assert health == [503]
    assert_each_acknowledged_move_is_in_the_log_once(players)
    assert_audit_passes(server)


def test_a_stream_and_a_long_poll_ride_through_a_postgresql_restart(server: Server, postgres: PrivatePostgres) -> None:
    table = Player(server, threading.Event())  # seat 0 of a table, three bots; not started
    path = f"/v1/tables/{table.table_id}"
    status, headers, body = server.request("GET", path, headers=table.auth)
    assert status == 200
    before = json.loads(body)
    stream = requests.get(f"http://127.0.0.1:{server.port}{path}/stream", headers={**table.auth, "Accept": "text/event-stream"}, stream=True, timeout=CLIENT_TIMEOUT)
    assert stream.status_code == 200
    messages = sseclient.SSEClient(stream).events()
    assert int(next(messages).id) == before["version"]
    polled: list[tuple[int, dict[str, Any]]] = []

    def long_poll() -> None:
        got, _, answer = server.request("GET", f"{path}?wait=30", headers={**table.auth, "If-None-Match": headers["etag"]}, timeout=40)
        polled.append((got, json.loads(answer) if got == 200 else {}))

    poller = threading.Thread(target=long_poll, daemon=True)
    poller.start()
    time.sleep(0.5)  # both wait on the node's version map now

    postgres.restart("immediate")
    cards = before["you"]["legal_moves"][:3]
    move = Sent("0-restart", before["version"], "passes", tuple(cards))
    table._send(move, {"cards": cards})  # retried with its key until the database answers
    assert not table.errors, table.errors
    assert move.answers[0][0] == 201

    woken = next(messages)  # keep-alives are comments: this is the next view
    assert woken.event == "view" and int(woken.id) > before["version"]
    assert json.loads(woken.data)["seats"][0]["has_passed"] is True
    poller.join(timeout=35)
    assert polled and polled[0][0] == 200, polled
    assert polled[0][1]["version"] > before["version"]
    stream.close()

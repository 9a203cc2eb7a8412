"""Webhook fixtures: a real HTTP receiver on 127.0.0.1 that verifies signatures.

    receiver     a Receiver; `receiver.url(seat)` is a hook URL, `receiver.answers`
                 the statuses to give (queue; empty = 200), `receiver.deliveries`
                 what arrived (verified with the `standardwebhooks` package)
    app_store    the app's store
    dispatcher   a Dispatcher on the app's store and FakeClock
    hooks        set seats' webhooks through PATCH /me and register their secrets
    drain        run the dispatcher until nothing is due
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from standardwebhooks import Webhook

from api.service.delivery import Dispatcher


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]
    body: str
    status: int  # what the receiver answered
    verified: bool
    error: str | None = None

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.body)


@dataclass
class Receiver:
    port: int
    secrets: dict[str, str] = field(default_factory=dict)  # path -> whsec_ secret
    answers: list[int] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    delay: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, seat: int, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/hook/{seat}"

    def path(self, seat: int) -> str:
        return f"/hook/{seat}"

    def accepted(self, seat: int | None = None) -> list[Delivery]:
        """Deliveries answered 2xx (for one seat's hook, or all)."""
        with self.lock:
            return [
                d
                for d in self.deliveries
                if 200 <= d.status < 300 and (seat is None or d.path == self.path(seat))
            ]

    def payloads(self, seat: int, type_: str | None = None) -> list[dict[str, Any]]:
        return [d.payload for d in self.accepted(seat) if type_ is None or d.payload["type"] == type_]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8")
            headers = {k.lower(): v for k, v in self.headers.items()}
            secret = receiver.secrets.get(self.path)
            verified, error = False, None
            try:
                if secret is None:
                    raise ValueError(f"no secret for {self.path}")
                Webhook(secret).verify(body, headers)
                verified = True
            except Exception as exc:  # noqa: BLE001 - recorded for the test to assert on
                error = f"{type(exc).__name__}: {exc}"
            if receiver.delay:
                threading.Event().wait(receiver.delay)
            with receiver.lock:
                status = receiver.answers.pop(0) if receiver.answers else 200
                if not verified:
                    status = 400
                receiver.deliveries.append(Delivery(self.path, headers, body, status, verified, error))
            self.send_response(status)
            if 300 <= status < 400:  # a redirect towards what must never be called
                self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

    return Handler


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(Receiver(0)))
    receiver = Receiver(server.server_address[1])
    server.RequestHandlerClass = _handler(receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield receiver
    server.shutdown()
    server.server_close()


@pytest.fixture
def app_store(app: Any) -> Any:
    """The app's own store."""
    return app.extensions["copas"]["store"]


@pytest.fixture
def settings(app: Any) -> Any:
    return app.config["COPAS_SETTINGS"]


@pytest.fixture
def dispatcher(app_store: Any, settings: Any, clock: Any) -> Dispatcher:
    import random

    return Dispatcher(app_store, settings, clock, rng=random.Random(1), timeout=5.0)


@pytest.fixture
def hooks(client: Any, receiver: Receiver) -> Callable[[str, int, str], str]:
    """hooks(table_id, seat, token) sets that seat's webhook to the receiver; returns the secret."""

    def set_hook(table_id: str, seat: int, token: str) -> str:
        response = client.patch(
            f"/v1/tables/{table_id}/me",
            json={"webhook_url": receiver.url(seat)},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 200, response.json
        secret = response.json["webhook_secret"]
        receiver.secrets[receiver.path(seat)] = secret
        return secret

    return set_hook


@pytest.fixture
def drain(dispatcher: Dispatcher) -> Callable[[], int]:
    """drain() runs the dispatcher until nothing is due now; the number of messages handled."""

    def run() -> int:
        total = 0
        while claimed := dispatcher.run_once(50):
            total += claimed
        return total

    return run

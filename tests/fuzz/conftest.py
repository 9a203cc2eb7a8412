"""Fixtures of the fuzz tests: the app on every store, with a seated table to aim at.

    fuzz_app     the Flask app: params memory | sqlite | postgresql (the last only with DATABASE_URL)
    seated       a table with four human seats and a spectator: table_id, invite_code,
                 tokens (by seat, then the spectator's)
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.service.clock import SystemClock
from api.store import open_store
from api.service.versions import TableVersions

from conftest import TEST_SETTINGS, DatabaseUrls  # tests/conftest.py (tests/ is on sys.path)


class ShortWaits:
    """The node's version map, with long polls cut to a moment.

    `?wait=30` with `If-None-Match: *` (any ETag) would hold each such generated
    request for up to 30 s; the fuzz tests want the answer, not the wait.
    """

    def __init__(self, versions: TableVersions) -> None:
        self._versions = versions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._versions, name)

    def wait(self, table_id: str, seen: int, timeout: float, *args: Any) -> int:
        return self._versions.wait(table_id, seen, min(timeout, 0.01), *args)


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def fuzz_app(request: pytest.FixtureRequest, database_urls: DatabaseUrls, tmp_path: Path) -> Iterator[object]:
    # The system clock, as in production: the stores judge idempotency keys' age by the
    # wall clock, so a FakeClock far from it makes every key look expired (see the report).
    url = "memory://" if request.param == "memory" else database_urls.fresh(request.param, tmp_path)
    store = open_store(url)
    settings = dataclasses.replace(TEST_SETTINGS, stream_seconds=0.05)  # a stream: its first message, then the end
    app = create_app(settings, store=store, clock=SystemClock(), rng=random.Random(7))
    service = app.extensions["copas"]["service"]
    service.versions = ShortWaits(service.versions)
    yield app
    store.dispose()


@dataclass(frozen=True)
class Seated:
    table_id: str
    invite_code: str
    tokens: list[str]

    def auth(self, seat: int = 0) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}


@pytest.fixture
def seated(fuzz_app: object) -> Seated:
    client = fuzz_app.test_client()  # type: ignore[attr-defined]
    created = client.post("/v1/tables", json={"name": "Ana"}).json
    tokens = [created["token"]]
    for name in ("Bruno", "Carla", "Davi", "Eva"):  # Eva watches
        tokens.append(client.post(f"/v1/invites/{created['invite_code']}/join", json={"name": name}).json["token"])
    return Seated(created["table_id"], created["invite_code"], tokens)

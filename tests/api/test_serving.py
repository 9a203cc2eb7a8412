"""Reads at scale: a 304 from the node's version map, views from the rendered-views cache."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from sqlalchemy import event

from api import create_app
from api.service.versions import STALE_BOUND_SECONDS
from api.store import open_store
from api.web.schemas import TableViewSchema
from conftest import TEST_SETTINGS
from httpplay import Game, auth

DOCUMENT = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text(encoding="utf-8"))
TABLE_VIEW = jsonschema_rs.Draft202012Validator({"$ref": "#/components/schemas/TableView", "components": DOCUMENT["components"]})


def service_of(app: Any) -> Any:
    return app.extensions["copas"]["service"]


def wait_until_live(app: Any) -> None:
    deadline = time.monotonic() + 10
    while not service_of(app).versions.live:
        assert time.monotonic() < deadline, "the change feed never came up"
        time.sleep(0.02)


class Statements:
    """Counts the SQL statements an app's store sends."""

    def __init__(self, app: Any) -> None:
        self.count = 0
        event.listen(app.extensions["copas"]["store"].engine, "before_cursor_execute", self._seen)

    def _seen(self, *_: Any) -> None:
        self.count += 1


@pytest.fixture
def pg_app(database_urls: Any, tmp_path: Path) -> Iterator[Any]:
    url = database_urls.fresh("postgresql", tmp_path)
    store = open_store(url)
    yield create_app(TEST_SETTINGS, store=store, rng=random.Random(7))
    store.dispose()


@pytest.fixture
def other_node(pg_app: Any) -> Iterator[Any]:
    """A second app (another node) on the same PostgreSQL database."""
    store = open_store(pg_app.extensions["copas"]["store"].url.render_as_string(hide_password=False))
    yield create_app(TEST_SETTINGS, store=store, rng=random.Random(8))
    store.dispose()


@pytest.mark.postgres
def test_a_304_asks_the_database_nothing_when_the_node_knows_the_version(pg_app: Any) -> None:
    game = Game.humans(pg_app.test_client())
    wait_until_live(pg_app)
    etag = game.get(game.tokens[1]).headers["ETag"]
    statements = Statements(pg_app)
    for _ in range(5):
        response = game.get(game.tokens[1], **{"If-None-Match": etag})
        assert response.status_code == 304
    assert statements.count == 0


@pytest.mark.postgres
def test_a_view_already_rendered_asks_the_database_nothing(pg_app: Any) -> None:
    game = Game.humans(pg_app.test_client())
    wait_until_live(pg_app)
    first = game.get(game.tokens[2])
    statements = Statements(pg_app)
    again = game.get(game.tokens[2])
    assert again.get_data() == first.get_data()
    assert statements.count == 0


def test_on_sqlite_with_no_change_feed_a_304_still_reads_the_version(database_urls: Any, tmp_path: Path) -> None:
    store = open_store(database_urls.fresh("sqlite", tmp_path))
    app = create_app(TEST_SETTINGS, store=store, rng=random.Random(7))
    try:
        game = Game.humans(app.test_client())
        etag = game.get(game.tokens[0]).headers["ETag"]
        statements = Statements(app)
        assert game.get(game.tokens[0], **{"If-None-Match": etag}).status_code == 304
        assert statements.count >= 1  # other processes may share the file: ask it
        assert service_of(app).versions.live is False
    finally:
        store.dispose()


@pytest.mark.postgres
def test_a_move_on_another_node_turns_this_nodes_304_into_a_200_within_the_stated_bound(pg_app: Any, other_node: Any) -> None:
    here, there = pg_app.test_client(), other_node.test_client()
    game = Game.humans(there)
    wait_until_live(pg_app)
    etag = here.get(game.url, headers=auth(game.tokens[0])).headers["ETag"]
    assert here.get(game.url, headers=auth(game.tokens[0], **{"If-None-Match": etag})).status_code == 304
    game.pass_cards(1, game.view(1)["you"]["hand"][:3])  # on the other node
    moved = time.monotonic()
    while True:
        response = here.get(game.url, headers=auth(game.tokens[0], **{"If-None-Match": etag}))
        if response.status_code == 200:
            break
        assert time.monotonic() - moved < STALE_BOUND_SECONDS, "a 304 staler than the stated bound"
        time.sleep(0.005)
    assert response.get_json()["seats"][1]["has_passed"] is True


def test_cached_and_freshly_rendered_views_are_equal_and_match_the_openapi_document(memory_app: Any) -> None:
    client = memory_app.test_client()
    service = service_of(memory_app)
    rng = random.Random(5)
    game = Game.humans(client, target_score=50)
    watcher = game.spectator()
    tokens = [*game.tokens, watcher]
    for step in range(400):
        if step % 25 == 0 or not game.step(rng):
            for token in tokens:
                check_cached_view(client, service, game, token)
        if game.view(0)["status"] == "finished":
            break
    for token in tokens:
        check_cached_view(client, service, game, token)


def check_cached_view(client: Any, service: Any, game: Game, token: str) -> None:
    first = game.get(token)
    hits = service.views.hits
    cached = game.get(token)
    assert service.views.hits == hits + 1, "the second read came from the rendered views"
    assert cached.get_data() == first.get_data()
    access = service.authenticate(game.table_id, token)
    fresh = TableViewSchema().dump(service.view(access, service.state(game.table_id)))
    assert cached.get_json() == json.loads(json.dumps(fresh))
    errors = [error.message for error in TABLE_VIEW.iter_errors(cached.get_json())]
    assert not errors, errors


def test_a_move_answers_the_movers_view_as_the_schema_writes_it(memory_app: Any) -> None:
    client = memory_app.test_client()
    service = service_of(memory_app)
    rng = random.Random(9)
    game = Game.humans(client, target_score=50)
    for _ in range(60):
        public = game.view(0)
        seat = public["turn"] if public["turn"] is not None else public["awaiting"][0]
        you = game.view(seat)["you"]
        if public["status"] == "passing":
            answer = game.post(seat, "passes", {"cards": sorted(rng.sample(you["legal_moves"], 3))})
        else:
            answer = game.post(seat, "plays", {"card": rng.choice(you["legal_moves"])})
        assert answer.status_code == 201
        assert answer.mimetype == "application/json"
        access = service.authenticate(game.table_id, game.tokens[seat])
        written = TableViewSchema().dump(service.view(access, service.state(game.table_id)))
        assert answer.get_json() == json.loads(json.dumps(written))
        assert answer.get_data() == game.get(game.tokens[seat]).get_data()  # the bytes a GET then reads
        errors = [error.message for error in TABLE_VIEW.iter_errors(answer.get_json())]
        assert not errors, errors


def test_each_viewer_gets_its_own_rendered_view(memory_app: Any) -> None:
    game = Game.humans(memory_app.test_client())
    watcher = game.spectator()
    bodies = {token: game.get(token).get_data() for token in [*game.tokens, watcher]}
    again = {token: game.get(token).get_data() for token in [*game.tokens, watcher]}
    assert bodies == again
    assert len(set(bodies.values())) == 5
    for seat, token in enumerate(game.tokens):
        assert json.loads(bodies[token])["you"]["seat"] == seat


def test_the_rendered_views_keep_no_more_than_their_bound() -> None:
    from api.engine import Viewer
    from api.service.views_cache import ViewsCache

    cache = ViewsCache(entries=3)
    for n in range(10):
        cache.put(f"t{n}", Viewer(seat=0), 1, {"n": n})
    assert len(cache) == 3
    assert cache.cached("t9", Viewer(seat=0), 1) == b'{"n":9}'
    assert cache.cached("t0", Viewer(seat=0), 1) is None


def test_an_older_rendered_view_never_replaces_a_newer_one() -> None:
    from api.engine import Viewer
    from api.service.views_cache import ViewsCache

    cache = ViewsCache()
    cache.put("t1", Viewer(seat=1), 5, {"version": 5})
    cache.put("t1", Viewer(seat=1), 4, {"version": 4})
    assert cache.cached("t1", Viewer(seat=1), 5) == b'{"version":5}'


def test_a_stream_that_is_not_read_keeps_no_backlog_and_resumes_with_the_newest_view(memory_app: Any) -> None:
    from api.service.versions import Hangup
    from api.service.watch import follow

    service = service_of(memory_app)
    game = Game.humans(memory_app.test_client())
    access = service.authenticate(game.table_id, game.tokens[0])
    views = follow(service, access, None, service.version(game.table_id), seconds=5, keepalive=1, hangup=Hangup())
    version, _ = next(views)
    for seat in (1, 2, 3):  # three changes while the client reads nothing
        game.pass_cards(seat, game.view(seat)["you"]["hand"][:3])
    newest = game.view(0)["version"]
    item = next(views)
    assert item is not None and item[0] == newest > version + 2
    assert json.loads(item[1]) == game.view(0)
    views.close()
    assert service.versions.waiting == 0

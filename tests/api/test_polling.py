"""Polling a table: ETag, If-None-Match → 304, and the long poll `?wait=N`."""

from __future__ import annotations

import threading
import time
from typing import Any

from httpplay import Game, auth


def test_a_view_carries_a_strong_etag(client: Any) -> None:
    game = Game.humans(client)
    response = game.get(game.tokens[0])
    assert response.status_code == 200
    etag = response.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    # The same request gives the same ETag.
    assert game.get(game.tokens[0]).headers["ETag"] == etag


def test_if_none_match_with_the_current_etag_answers_304_without_a_body(client: Any) -> None:
    game = Game.humans(client)
    etag = game.get(game.tokens[1]).headers["ETag"]
    response = game.get(game.tokens[1], **{"If-None-Match": etag})
    assert response.status_code == 304
    assert response.get_data() == b""
    assert response.headers["ETag"] == etag


def test_each_viewer_has_its_own_etag(client: Any) -> None:
    game = Game.humans(client)
    watcher = game.spectator()
    etags = {game.get(token).headers["ETag"] for token in [*game.tokens, watcher]}
    assert len(etags) == 5
    # Another viewer's ETag is no match for this one.
    other = game.get(game.tokens[2]).headers["ETag"]
    assert game.get(game.tokens[0], **{"If-None-Match": other}).status_code == 200


def test_the_etag_changes_after_a_move(client: Any) -> None:
    game = Game.humans(client)
    before = game.get(game.tokens[0]).headers["ETag"]
    game.pass_cards(3, game.view(3)["you"]["hand"][:3])
    response = game.get(game.tokens[0], **{"If-None-Match": before})
    assert response.status_code == 200
    assert response.headers["ETag"] != before
    assert response.get_json()["seats"][3]["has_passed"] is True


def test_the_response_to_a_move_carries_the_etag_a_later_get_gives(client: Any) -> None:
    game = Game.humans(client)
    moved = game.post(0, "passes", {"cards": game.view(0)["you"]["hand"][:3]})
    assert moved.status_code == 201
    assert game.get(game.tokens[0], **{"If-None-Match": moved.headers["ETag"]}).status_code == 304


def test_a_long_poll_with_no_change_answers_304_after_the_wait(client: Any) -> None:
    game = Game.humans(client)
    etag = game.get(game.tokens[0]).headers["ETag"]
    started = time.monotonic()
    response = client.get(f"{game.url}?wait=1", headers=auth(game.tokens[0], **{"If-None-Match": etag}))
    elapsed = time.monotonic() - started
    assert response.status_code == 304
    assert response.get_data() == b""
    assert response.headers["ETag"] == etag
    assert 0.9 <= elapsed < 5


def test_a_long_poll_without_if_none_match_answers_at_once(client: Any) -> None:
    game = Game.humans(client)
    started = time.monotonic()
    response = client.get(f"{game.url}?wait=20", headers=auth(game.tokens[0]))
    assert response.status_code == 200
    assert time.monotonic() - started < 2


def test_a_long_poll_with_a_stale_etag_answers_at_once(client: Any) -> None:
    game = Game.humans(client)
    etag = game.get(game.tokens[0]).headers["ETag"]
    game.pass_cards(1, game.view(1)["you"]["hand"][:3])
    started = time.monotonic()
    response = client.get(f"{game.url}?wait=20", headers=auth(game.tokens[0], **{"If-None-Match": etag}))
    assert response.status_code == 200
    assert time.monotonic() - started < 2


def test_a_long_poll_wakes_when_another_request_makes_a_move(app: Any, client: Any) -> None:
    """On PostgreSQL the waiter is woken by LISTEN/NOTIFY; on SQLite by polling the version."""
    game = Game.humans(client)
    hand = game.view(2)["you"]["hand"]
    etag = game.get(game.tokens[0]).headers["ETag"]
    moved = threading.Event()
    failures: list[Any] = []

    def mover() -> None:
        try:
            time.sleep(0.5)
            response = app.test_client().post(f"{game.url}/passes", json={"cards": hand[:3]}, headers=auth(game.tokens[2]))
            if response.status_code != 201:
                failures.append(response.get_json())
        finally:
            moved.set()

    thread = threading.Thread(target=mover)
    started = time.monotonic()
    thread.start()
    response = client.get(f"{game.url}?wait=20", headers=auth(game.tokens[0], **{"If-None-Match": etag}))
    elapsed = time.monotonic() - started
    thread.join(timeout=10)
    assert not failures
    assert moved.is_set()
    assert response.status_code == 200
    assert response.get_json()["seats"][2]["has_passed"] is True
    assert response.headers["ETag"] != etag
    assert 0.4 <= elapsed < 5, elapsed

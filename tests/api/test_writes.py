"""Writes: If-Match preconditions and Idempotency-Key retries."""

from __future__ import annotations

from typing import Any

from httpplay import Game, assert_problem


def hand(game: Game, seat: int) -> list[str]:
    return game.view(seat)["you"]["hand"]


def test_a_move_with_the_current_etag_in_if_match_succeeds(client: Any) -> None:
    game = Game.humans(client)
    etag = game.get(game.tokens[0]).headers["ETag"]
    cards = hand(game, 0)[:3]
    response = game.post(0, "passes", {"cards": cards}, **{"If-Match": etag})
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["you"]["pass"]["given"] == cards
    assert response.get_json()["seats"][0]["has_passed"] is True


def test_a_move_with_the_current_version_in_if_match_succeeds(client: Any) -> None:
    game = Game.humans(client)
    version = game.version()
    response = game.post(1, "passes", {"cards": hand(game, 1)[:3]}, **{"If-Match": str(version)})
    assert response.status_code == 201, response.get_json()
    version = response.get_json()["version"]
    response = game.post(2, "passes", {"cards": hand(game, 2)[:3]}, **{"If-Match": f'"{version}"'})
    assert response.status_code == 201, response.get_json()


def test_a_stale_if_match_is_refused_with_412_and_writes_nothing(client: Any) -> None:
    game = Game.humans(client)
    etag = game.get(game.tokens[0]).headers["ETag"]
    version = game.version()
    game.pass_cards(3, hand(game, 3)[:3])
    now = game.version()
    for stale in (etag, str(version), f'"{version}"'):
        assert_problem(game.post(0, "passes", {"cards": hand(game, 0)[:3]}, **{"If-Match": stale}), 412, "stale_version")
        assert game.version() == now
    assert game.view(0)["seats"][0]["has_passed"] is False
    # Another viewer's ETag of the current version is not this viewer's.
    other = game.get(game.tokens[1]).headers["ETag"]
    assert_problem(game.post(0, "passes", {"cards": hand(game, 0)[:3]}, **{"If-Match": other}), 412, "stale_version")


def test_a_retry_with_the_same_key_returns_the_first_response_and_writes_nothing(client: Any) -> None:
    game = Game.humans(client)
    cards = hand(game, 0)[:3]
    first = game.post(0, "passes", {"cards": cards}, **{"Idempotency-Key": "pass-1"})
    assert first.status_code == 201
    version = game.version()
    # Other seats move on meanwhile: the retry still answers what the first request answered.
    game.pass_cards(1, hand(game, 1)[:3])
    moved_on = game.version()
    assert moved_on > version
    retry = game.post(0, "passes", {"cards": cards}, **{"Idempotency-Key": "pass-1"})
    assert retry.status_code == first.status_code
    assert retry.get_data() == first.get_data()
    assert retry.headers["ETag"] == first.headers["ETag"]
    assert retry.mimetype == first.mimetype
    assert game.version() == moved_on


def test_the_same_key_with_another_body_is_refused(client: Any) -> None:
    game = Game.humans(client)
    cards = hand(game, 0)
    assert game.post(0, "passes", {"cards": cards[:3]}, **{"Idempotency-Key": "k"}).status_code == 201
    version = game.version()
    assert_problem(game.post(0, "passes", {"cards": cards[3:6]}, **{"Idempotency-Key": "k"}), 422, "idempotency_key_reused")
    assert game.version() == version


def test_a_refused_move_replayed_with_its_key_returns_the_same_refusal(client: Any) -> None:
    game = Game.humans(client)
    public = game.to_tricks()
    waiting = (public["turn"] + 1) % 4
    # A play out of turn is refused...
    card = next(c for c in hand(game, waiting))
    first = game.post(waiting, "plays", {"card": card}, **{"Idempotency-Key": "early"})
    assert_problem(first, 409, "not_your_turn")
    # ...and its retry gets the same refusal, even after the turn has come.
    version = game.version()
    retry = game.post(waiting, "plays", {"card": card}, **{"Idempotency-Key": "early"})
    assert_problem(retry, 409, "not_your_turn")
    assert retry.get_data() == first.get_data()
    assert game.version() == version


def test_a_precondition_failure_is_kept_for_its_key_too(client: Any) -> None:
    game = Game.humans(client)
    old = game.version()
    game.pass_cards(2, hand(game, 2)[:3])
    cards = hand(game, 0)[:3]
    first = game.post(0, "passes", {"cards": cards}, **{"If-Match": str(old), "Idempotency-Key": "stale"})
    assert_problem(first, 412, "stale_version")
    retry = game.post(0, "passes", {"cards": cards}, **{"Idempotency-Key": "stale"})
    assert retry.status_code == 412 and retry.get_data() == first.get_data()
    assert game.view(0)["seats"][0]["has_passed"] is False


def test_keys_belong_to_one_token(client: Any) -> None:
    game = Game.humans(client)
    for seat in (0, 1):
        response = game.post(seat, "passes", {"cards": hand(game, seat)[:3]}, **{"Idempotency-Key": "same-key"})
        assert response.status_code == 201, response.get_json()
        assert response.get_json()["you"]["seat"] == seat
    view = game.view(2)
    assert [s["has_passed"] for s in view["seats"]] == [True, True, False, False]


def test_a_successful_move_returns_201_with_the_movers_view(client: Any) -> None:
    game = Game.humans(client)
    public = game.to_tricks()
    mover = public["turn"]
    response = game.post(mover, "plays", {"card": "2C"})
    assert response.status_code == 201
    body = response.get_json()
    assert body["you"]["seat"] == mover
    assert "2C" not in body["you"]["hand"]
    assert body["trick"]["cards"] == [{"seat": mover, "card": "2C"}]
    assert body["version"] == public["version"] + 1

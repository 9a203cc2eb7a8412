"""The HTTP conventions frontends, proxies and browsers rely on (RFC 9110, RFC 6750, CORS)."""

from __future__ import annotations

from typing import Any

import pytest

from api import create_app
from api.app import EXPOSED_HEADERS, PREFLIGHT_MAX_AGE
from api.config import Settings
from api.store import open_store
from httpplay import Game, assert_problem, auth


@pytest.fixture
def web(memory_app: Any) -> Any:
    return memory_app.test_client()


# -- conditional requests ------------------------------------------------------------


def test_a_weakened_etag_in_if_none_match_still_answers_304(web: Any) -> None:
    # A proxy that compresses answers may weaken the ETag: If-None-Match compares weakly.
    game = Game.humans(web)
    etag = game.get(game.tokens[0]).headers["ETag"]
    response = game.get(game.tokens[0], **{"If-None-Match": f"W/{etag}"})
    assert response.status_code == 304
    assert response.headers["ETag"] == etag


def test_if_none_match_star_answers_304_for_an_existing_view(web: Any) -> None:
    game = Game.humans(web)
    assert game.get(game.tokens[0], **{"If-None-Match": "*"}).status_code == 304


def test_an_etag_among_several_in_if_none_match_answers_304(web: Any) -> None:
    game = Game.humans(web)
    etag = game.get(game.tokens[0]).headers["ETag"]
    assert game.get(game.tokens[0], **{"If-None-Match": f'"other", W/{etag}'}).status_code == 304


def test_a_move_is_never_answered_304_whatever_if_none_match_says(web: Any) -> None:
    game = Game.humans(web)
    moved = web.post(
        f"/v1/tables/{game.table_id}/passes",
        json={"cards": game.view(0)["you"]["hand"][:3]},
        headers=auth(game.tokens[0], **{"If-None-Match": "*"}),
    )
    assert moved.status_code == 201


# -- caching ------------------------------------------------------------------------------


def test_a_view_is_private_to_its_viewer_and_revalidated(web: Any) -> None:
    game = Game.humans(web)
    response = game.get(game.tokens[0])
    assert response.headers["Cache-Control"] == "private, no-cache"
    assert "Authorization" in response.headers["Vary"]


def test_a_304_carries_the_same_caching_headers_as_the_view(web: Any) -> None:
    game = Game.humans(web)
    etag = game.get(game.tokens[0]).headers["ETag"]
    response = game.get(game.tokens[0], **{"If-None-Match": etag})
    assert response.status_code == 304
    assert response.headers["Cache-Control"] == "private, no-cache"
    assert "Authorization" in response.headers["Vary"]


def test_a_moves_answer_is_a_private_view_too(web: Any) -> None:
    game = Game.humans(web)
    moved = game.post(0, "passes", {"cards": game.view(0)["you"]["hand"][:3]})
    assert moved.headers["Cache-Control"] == "private, no-cache"
    assert "Authorization" in moved.headers["Vary"]


# -- authentication challenges -------------------------------------------------------


def test_a_request_without_a_token_is_challenged_for_a_bearer_token(web: Any) -> None:
    game = Game.humans(web)
    response = web.get(f"/v1/tables/{game.table_id}")
    assert_problem(response, 401, "unauthenticated")
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="copas"'


def test_an_unknown_token_is_challenged_as_an_invalid_token(web: Any) -> None:
    game = Game.humans(web)
    response = web.get(f"/v1/tables/{game.table_id}", headers=auth("not-a-token-we-issued"))
    assert_problem(response, 401, "unauthenticated")
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="copas", error="invalid_token"'


def test_a_forbidden_request_carries_no_challenge(web: Any) -> None:
    game = Game.humans(web)
    watcher = game.spectator()
    response = web.post(f"/v1/tables/{game.table_id}/plays", json={"card": "2C"}, headers=auth(watcher))
    assert_problem(response, 403, "forbidden")
    assert "WWW-Authenticate" not in response.headers


# -- idempotency ---------------------------------------------------------------------------


def test_a_replayed_answer_says_it_was_replayed(web: Any) -> None:
    game = Game.humans(web)
    cards = game.view(0)["you"]["hand"][:3]
    headers = auth(game.tokens[0], **{"Idempotency-Key": "pass-once"})
    first = web.post(f"/v1/tables/{game.table_id}/passes", json={"cards": cards}, headers=headers)
    again = web.post(f"/v1/tables/{game.table_id}/passes", json={"cards": cards}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert "Idempotency-Replayed" not in first.headers
    assert again.headers["Idempotency-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Cache-Control"] == "private, no-cache"


# -- CORS ------------------------------------------------------------------------------------


def test_a_preflight_may_be_reused_by_the_browser_for_a_day() -> None:
    app = create_app(Settings(cors_origins=("https://front.example",)), store=open_store("memory://"))
    preflight = app.test_client().options(
        "/v1/tables/abc",
        headers={
            "Origin": "https://front.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "Authorization, If-None-Match",
        },
    )
    assert int(preflight.headers["Access-Control-Max-Age"]) == PREFLIGHT_MAX_AGE == 86400


def test_a_browser_script_may_read_the_retry_rate_limit_and_replay_headers() -> None:
    app = create_app(Settings(cors_origins=("*",)), store=open_store("memory://"))
    response = app.test_client().get("/v1/health", headers={"Origin": "https://front.example"})
    exposed = {name.strip().lower() for name in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "retry-after", "ratelimit", "ratelimit-policy", "www-authenticate", "idempotency-replayed"} <= exposed
    assert exposed == {name.lower() for name in EXPOSED_HEADERS}


def test_static_files_stay_cacheable_by_anyone(web: Any) -> None:
    response = web.get("/v1/docs/assets/swagger-ui.css")
    assert response.status_code == 200 and "ETag" in response.headers
    assert "private" not in response.headers.get("Cache-Control", "")
    assert "Authorization" not in response.headers.get("Vary", "")

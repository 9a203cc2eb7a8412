"""Hostile requests through HTTP, on every store: refused cleanly, never a 500, nothing written.

PostgreSQL refuses NUL in text outright, so NUL reaching it would be a 500
that SQLite and memory hide: these tests run there too when DATABASE_URL is set.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import Seated

PROBLEM = "application/problem+json"


@pytest.fixture
def client(fuzz_app: Any) -> Any:
    return fuzz_app.test_client()


def version(client: Any, seated: Seated) -> int:
    response = client.get(f"/v1/tables/{seated.table_id}", headers=seated.auth(0))
    assert response.status_code == 200
    return response.json["version"]


def events(client: Any, seated: Seated) -> list[dict[str, Any]]:
    response = client.get(f"/v1/tables/{seated.table_id}/events?limit=500", headers=seated.auth(0))
    assert response.status_code == 200
    return response.json["events"]


def assert_problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.data[:300])
    assert response.mimetype == PROBLEM, response.mimetype
    body = json.loads(response.data)
    assert body["status"] == status and body["type"] and body["title"] and body["detail"]
    if code is not None:
        assert body["code"] == code, body
    return body


# -- text that no database stores ---------------------------------------------------------

NUL_NAMES = ["A\x00na", "\x00", "Ana\x00"]


@pytest.mark.parametrize("name", NUL_NAMES)
def test_nul_in_names_is_422_everywhere(client: Any, seated: Seated, name: str) -> None:
    before = events(client, seated)
    assert_problem(client.post("/v1/tables", json={"name": name}), 422, "validation_error")
    assert_problem(client.post(f"/v1/invites/{seated.invite_code}/join", json={"name": name}), 422, "validation_error")
    assert_problem(
        client.patch(f"/v1/tables/{seated.table_id}/me", json={"name": name}, headers=seated.auth(1)), 422, "validation_error"
    )
    assert_problem(
        client.patch(f"/v1/tables/{seated.table_id}/me", json={"webhook_url": f"http://127.0.0.1/{name}"}, headers=seated.auth(1)),
        422,
        "validation_error",
    )
    assert events(client, seated) == before


LONE_SURROGATES = ['{"name": "\\ud800"}', '{"name": "Ana\\udfff"}', '{"name": "\\udc00\\ud800"}']


@pytest.mark.parametrize("raw", LONE_SURROGATES)
def test_lone_surrogates_are_422_never_500(client: Any, seated: Seated, raw: str) -> None:
    before = events(client, seated)
    headers = {"Content-Type": "application/json"}
    assert_problem(client.post("/v1/tables", data=raw, headers=headers), 422, "validation_error")
    assert_problem(client.post(f"/v1/invites/{seated.invite_code}/join", data=raw, headers=headers), 422, "validation_error")
    assert_problem(
        client.patch(f"/v1/tables/{seated.table_id}/me", data=raw, headers={**headers, **seated.auth(2)}), 422, "validation_error"
    )
    card = raw.replace('"name"', '"card"')
    assert_problem(
        client.post(f"/v1/tables/{seated.table_id}/plays", data=card, headers={**headers, **seated.auth(0)}), 422, "validation_error"
    )
    assert events(client, seated) == before


@pytest.mark.parametrize("where", ["table_id", "invite_code", "token", "query"])
def test_nul_in_the_url_or_token_is_refused_cleanly(client: Any, seated: Seated, where: str) -> None:
    if where == "table_id":
        assert_problem(client.get(f"/v1/tables/{seated.table_id}%00", headers=seated.auth(0)), 404)
        assert_problem(client.get("/v1/tables/%00/events", headers=seated.auth(0)), 404)
    elif where == "invite_code":
        assert_problem(client.post("/v1/invites/ab%00cd/join", json={"name": "Eve"}), 404, "not_found")
    elif where == "token":
        assert_problem(client.get(f"/v1/tables/{seated.table_id}", headers={"Authorization": "Bearer a\x00b"}), 401)
    else:
        assert_problem(client.get(f"/v1/tables/{seated.table_id}/events?after=%00", headers=seated.auth(0)), 422)


# -- sizes and shapes -----------------------------------------------------------------------


def test_a_body_over_64_kib_is_413_problem_json(client: Any, seated: Seated) -> None:
    before = events(client, seated)
    big = json.dumps({"name": "A" * (70 * 1024)})
    assert_problem(client.post("/v1/tables", data=big, content_type="application/json"), 413, "payload_too_large")
    assert_problem(
        client.post(f"/v1/tables/{seated.table_id}/plays", data=big, content_type="application/json", headers=seated.auth(0)),
        413,
        "payload_too_large",
    )
    assert_problem(
        client.post(
            f"/v1/tables/{seated.table_id}/plays",
            data=big,
            content_type="application/json",
            headers={**seated.auth(0), "Idempotency-Key": "big-1"},
        ),
        413,
        "payload_too_large",
    )
    assert events(client, seated) == before


@pytest.mark.parametrize("raw", ["{", "not json", '{"name": "Ana",}', "\xff\xfe", "", "null", "[]", '"Ana"', "1e999999"])
def test_invalid_json_is_a_problem(client: Any, raw: str) -> None:
    response = client.post("/v1/tables", data=raw.encode("latin-1"), content_type="application/json")
    assert response.status_code in (400, 422)
    assert_problem(response, response.status_code)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_a_body_of_another_content_type_is_refused(client: Any, seated: Seated, content_type: str) -> None:
    before = events(client, seated)
    response = client.post(
        f"/v1/tables/{seated.table_id}/plays", data='{"card": "2C"}', content_type=content_type, headers=seated.auth(0)
    )
    assert response.status_code in (415, 422)
    assert_problem(response, response.status_code)
    assert events(client, seated) == before


def test_unknown_fields_are_422(client: Any, seated: Seated) -> None:
    body = assert_problem(client.post("/v1/tables", json={"name": "Ana", "admin": True}), 422, "validation_error")
    assert "admin" in json.dumps(body["errors"])
    assert_problem(
        client.post(f"/v1/tables/{seated.table_id}/plays", json={"card": "2C", "seat": 1}, headers=seated.auth(0)),
        422,
        "validation_error",
    )
    # Unknown query parameters are ignored (cache busters such as `_=123`), as webargs does for queries.
    assert client.get(f"/v1/tables/{seated.table_id}/events?after=0&_=1", headers=seated.auth(0)).status_code == 200


@pytest.mark.parametrize("value", [10**30, -(10**30), 2**63, 1.5, "3", True, None])
def test_huge_or_mistyped_integers_are_422(client: Any, seated: Seated, value: Any) -> None:
    before = events(client, seated)
    assert_problem(client.post("/v1/tables", json={"name": "Ana", "target_score": value}), 422, "validation_error")
    assert_problem(
        client.post(f"/v1/tables/{seated.table_id}/accusations", json={"seat": value}, headers=seated.auth(0)),
        422,
        "validation_error",
    )
    assert_problem(
        client.post(f"/v1/tables/{seated.table_id}/bots", json={"seats": [value]}, headers=seated.auth(0)),
        422,
        "validation_error",
    )
    assert events(client, seated) == before


@pytest.mark.parametrize("query", ["after=99999999999999999999", "limit=100000000000000000000", "after=-1", "limit=0", "wait=31", "wait=1e9"])
def test_huge_integers_in_queries_are_422(client: Any, seated: Seated, query: str) -> None:
    path = "" if query.startswith("wait") else "/events"
    assert_problem(client.get(f"/v1/tables/{seated.table_id}{path}?{query}", headers=seated.auth(0)), 422, "validation_error")


# -- routes, methods, tokens -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/nope", "/client", "/v1", "/v1/nope", "/v2/tables", "/v1/tables/x/y/z", "/v1/invites/abc"])
def test_unknown_routes_are_404_problem_json(client: Any, path: str) -> None:
    assert_problem(client.get(path), 404, "not_found")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("delete", "/v1/tables/{id}", {"GET"}),
        ("put", "/v1/tables/{id}", {"GET"}),
        ("get", "/v1/tables/{id}/plays", {"POST"}),
        ("get", "/v1/tables", {"POST"}),
        ("post", "/v1/health", {"GET"}),
        ("delete", "/v1/tables/{id}/me", {"PATCH"}),
    ],
)
def test_a_wrong_method_is_405_with_allow(client: Any, seated: Seated, method: str, path: str, allowed: set[str]) -> None:
    response = getattr(client, method)(path.replace("{id}", seated.table_id), headers=seated.auth(0))
    assert_problem(response, 405, "method_not_allowed")
    assert allowed <= {m.strip() for m in response.headers["Allow"].split(",")}


def test_a_token_of_another_table_gets_404(client: Any, seated: Seated) -> None:
    other = client.post("/v1/tables", json={"name": "Zed"}).json
    before = events(client, seated)
    foreign = {"Authorization": f"Bearer {other['token']}"}
    for method, action, body in [("get", "", None), ("get", "/events", None), ("post", "/plays", {"card": "2C"}),
                                 ("post", "/resignation", None), ("patch", "/me", {"name": "X"})]:
        response = getattr(client, method)(f"/v1/tables/{seated.table_id}{action}", json=body, headers=foreign)
        assert_problem(response, 404, "not_found")
    assert events(client, seated) == before


@pytest.mark.parametrize("authorization", [None, "", "Bearer", "Bearer ", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer nope", "bearer " + "x" * 5000])
def test_a_missing_or_unknown_token_gets_401(client: Any, seated: Seated, authorization: str | None) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    before = events(client, seated)
    assert_problem(client.get(f"/v1/tables/{seated.table_id}", headers=headers), 401, "unauthenticated")
    assert_problem(client.post(f"/v1/tables/{seated.table_id}/resignation", headers=headers), 401, "unauthenticated")
    assert_problem(
        client.post(f"/v1/tables/{seated.table_id}/resignation", headers={**headers, "Idempotency-Key": "k1"}), 401, "unauthenticated"
    )
    assert events(client, seated) == before


# -- a refused request writes nothing -------------------------------------------------------------


def test_refused_requests_write_no_event(client: Any, seated: Seated) -> None:
    start = version(client, seated)
    table = f"/v1/tables/{seated.table_id}"
    refused = [
        client.post(f"{table}/plays", json={"card": "2C"}, headers=seated.auth(0)),  # passing: wrong_phase
        client.post(f"{table}/passes", json={"cards": ["2C", "2C", "3C"]}, headers=seated.auth(0)),  # not distinct
        client.post(f"{table}/passes", json={"cards": ["XX", "2C", "3C"]}, headers=seated.auth(0)),  # not cards
        client.post(f"{table}/passes", json={"cards": ["2C"]}, headers=seated.auth(4)),  # spectator
        client.post(f"{table}/bots", json={}, headers=seated.auth(0)),  # table_full
        client.post(f"{table}/bots", json={"seats": [1]}, headers=seated.auth(1)),  # not the creator
        client.post(f"{table}/accusations", json={"seat": 0}, headers=seated.auth(0)),
        client.post(f"{table}/abandonment", headers=seated.auth(0)),  # not_stalled
        client.post(f"{table}/rematch", headers=seated.auth(0)),  # match_not_finished
        client.post(f"{table}/resignation", headers={**seated.auth(0), "If-Match": '"0"'}),  # stale_version
        client.post(f"{table}/resignation", headers={**seated.auth(4)}),  # spectator
        client.patch(f"{table}/me", json={"deck_design": "\x00"}, headers=seated.auth(0)),
        client.patch(f"{table}/me", json={"webhook_url": "http://169.254.169.254/"}, headers=seated.auth(0)),
    ]
    for response in refused:
        assert 400 <= response.status_code < 500, (response.status_code, response.json)
        assert response.mimetype == PROBLEM
    assert version(client, seated) == start


def test_a_refused_request_under_an_idempotency_key_can_be_corrected(client: Any, seated: Seated) -> None:
    """A request refused for its shape is not an answer to replay: the corrected retry runs."""
    table = f"/v1/tables/{seated.table_id}"
    start = version(client, seated)
    key = {"Idempotency-Key": "resign-1"}
    bad = client.post(f"{table}/resignation", headers={**seated.auth(0), **key, "If-Match": "é" * 150})
    assert_problem(bad, 422, "validation_error")
    good = client.post(f"{table}/resignation", headers={**seated.auth(0), **key})
    assert good.status_code == 201, good.json
    again = client.post(f"{table}/resignation", headers={**seated.auth(0), **key})
    assert (again.status_code, again.data) == (good.status_code, good.data)
    assert version(client, seated) == good.json["version"] > start

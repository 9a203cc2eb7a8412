"""The invite link shows the table before joining: options, seats, what you would be; never a card."""

import re

from api import create_app
from api.config import Settings
from api.store import open_store

from api.engine.rule_set import CLASSIC, as_plain

CLASSIC_OPTIONS = as_plain(CLASSIC)  # a classic table's view shows every option


def client():
    return create_app(Settings(public_url="http://testserver"), store=open_store("memory://")).test_client()


def test_the_invite_url_shows_the_table_and_says_a_joiner_would_play():
    c = client()
    created = c.post("/v1/tables", json={"name": "Ana", "target_score": 50}).json
    assert created["invite_url"] == f"http://testserver/v1/invites/{created['invite_code']}"
    shown = c.get(f"/v1/invites/{created['invite_code']}")
    assert shown.status_code == 200
    body = shown.json
    assert body["table_id"] == created["table_id"]
    assert body["status"] == "waiting"
    assert body["options"] == {**CLASSIC_OPTIONS, "target_score": 50, "revoke": "prevented", "tie": "share"}
    assert [seat["kind"] for seat in body["seats"]] == ["human", "empty", "empty", "empty"]
    assert body["open_seats"] == 3 and body["joins_as"] == "player"
    assert body["join_url"] == f"http://testserver/v1/invites/{created['invite_code']}/join"


def test_once_the_match_runs_the_invite_says_a_joiner_would_watch_and_shows_no_card():
    c = client()
    created = c.post("/v1/tables", json={"name": "Ana"}).json
    c.post(f"/v1/tables/{created['table_id']}/bots", json={}, headers={"Authorization": f"Bearer {created['token']}"})
    shown = c.get(f"/v1/invites/{created['invite_code']}")
    assert shown.json["status"] == "passing"
    assert shown.json["open_seats"] == 0 and shown.json["joins_as"] == "spectator"
    assert not re.search(r'"[2-9TJQKA][CDHS]"', shown.get_data(as_text=True))


def test_an_unknown_invite_code_is_a_404_problem():
    response = client().get("/v1/invites/nope")
    assert response.status_code == 404
    assert response.json["code"] == "not_found"

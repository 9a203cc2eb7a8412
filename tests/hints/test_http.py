"""GET /v1/tables/{id}/hint through HTTP, on SQLite and PostgreSQL: the hint, its language, the refusals."""

from __future__ import annotations

from typing import Any

from api.engine.hints import RULES, SENTENCES, TIPS
from api.service.errors import ThinkerUnavailable
from tests.conftest import TableDriver

PORTUGUESE_OPENINGS = {words["pt-BR"].split("{")[0] for words in SENTENCES.values()}


def hint(table: TableDriver, table_id: str, token: str, **headers: str) -> Any:
    return table.client.get(f"/v1/tables/{table_id}/hint", headers=table.auth(token, **headers))  # type: ignore[attr-defined]


def test_a_passing_seat_gets_three_of_its_own_cards_to_pass(table: TableDriver) -> None:
    table_id, tokens = table.full_table()
    response = hint(table, table_id, tokens[1])
    assert response.status_code == 200
    body = response.json
    you = table.view(table_id, tokens[1])["you"]
    assert body["action"] == "pass" and body["choice"] is None
    assert len(body["cards"]) == 3 and set(body["cards"]) <= set(you["legal_moves"])
    assert all(reason["tip"] in (*TIPS, *RULES) and reason["text"] for reason in body["reasons"])
    assert response.headers["Content-Language"] == "en"


def test_following_the_hints_plays_legal_moves_and_asking_changes_nothing(table: TableDriver) -> None:
    table_id, tokens = table.full_table()
    for token in tokens:
        cards = hint(table, table_id, token).json["cards"]
        assert table.post(table_id, token, "passes", {"cards": cards}).status_code == 201
    for _ in range(12):
        view = table.view(table_id, tokens[0])
        token = tokens[view["turn"]]
        first, again = hint(table, table_id, token), hint(table, table_id, token)
        assert first.json == again.json  # one hint per position
        assert table.view(table_id, tokens[0])["version"] == view["version"]  # asking wrote nothing
        assert first.json["action"] == "play"
        assert table.post(table_id, token, "plays", {"card": first.json["cards"][0]}).status_code == 201


def test_reasons_come_in_portuguese_when_asked_for(table: TableDriver) -> None:
    table_id, tokens = table.full_table()
    table.pass_all(table_id, tokens)
    seen = 0
    for _ in range(20):  # trick 1's lead is always explained by a rule; later plays by tips
        view = table.view(table_id, tokens[0])
        token = tokens[view["turn"]]
        english = hint(table, table_id, token, **{"Accept-Language": "en-US,en;q=0.9"})
        portuguese = hint(table, table_id, token, **{"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"})
        assert portuguese.headers["Content-Language"] == "pt-BR" and english.headers["Content-Language"] == "en"
        assert [r["tip"] for r in english.json["reasons"]] == [r["tip"] for r in portuguese.json["reasons"]]
        for reason in portuguese.json["reasons"]:
            assert any(reason["text"].startswith(opening) for opening in PORTUGUESE_OPENINGS), reason
            seen += 1
        assert table.post(table_id, token, "plays", {"card": english.json["cards"][0]}).status_code == 201
    assert seen >= 1


def test_a_seat_that_cannot_act_now_is_told_it_is_not_its_turn(table: TableDriver) -> None:
    created = table.create()
    waiting = hint(table, created["table_id"], created["token"])
    assert waiting.status_code == 409 and waiting.json["code"] == "not_your_turn"
    table_id, tokens = table.full_table()
    passed = tokens[2]
    table.post(table_id, passed, "passes", {"cards": table.view(table_id, passed)["you"]["legal_moves"][:3]})
    refused = hint(table, table_id, passed)
    assert refused.status_code == 409 and refused.json["code"] == "not_your_turn"
    assert refused.headers["Content-Type"] == "application/problem+json"
    table.pass_all(table_id, tokens)
    turn = table.view(table_id, tokens[0])["turn"]
    other = tokens[(turn + 1) % 4]
    assert hint(table, table_id, other).json["code"] == "not_your_turn"


def test_spectators_get_no_hints(table: TableDriver) -> None:
    created = table.create()
    for name in ("Bruno", "Carla", "Davi"):
        table.join(created["invite_code"], name)
    spectator = table.join(created["invite_code"], "Eva")["token"]
    response = hint(table, created["table_id"], spectator)
    assert response.status_code == 403 and response.json["code"] == "forbidden"


def test_a_table_created_without_hints_refuses_them(table: TableDriver) -> None:
    table_id, tokens = table.full_table(hints=False)
    assert table.view(table_id, tokens[0])["options"]["hints"] is False
    response = hint(table, table_id, tokens[0])
    assert response.status_code == 403 and response.json["code"] == "hints_disabled"


def test_hints_are_on_by_default_and_the_option_takes_only_a_json_boolean(table: TableDriver) -> None:
    table_id, tokens = table.full_table()
    assert table.view(table_id, tokens[0])["options"]["hints"] is True
    for bad in ("yes", 1, None):
        response = table.client.post("/v1/tables", json={"name": "Ana", "hints": bad})  # type: ignore[attr-defined]
        assert response.status_code == 422 and "hints" in response.json["errors"]["json"]


def test_hints_need_a_token_of_the_table(table: TableDriver) -> None:
    table_id, tokens = table.full_table()
    other_id, other_tokens = table.full_table()
    assert table.client.get(f"/v1/tables/{table_id}/hint").status_code == 401  # type: ignore[attr-defined]
    assert hint(table, table_id, other_tokens[0]).status_code == 404


def test_a_search_that_cannot_answer_is_a_503_problem_not_a_500(memory_app: Any) -> None:
    class Unavailable:
        def hint(self, view: object, seed: int) -> None:
            raise ThinkerUnavailable()

    memory_app.extensions["copas"]["service"].thinker = Unavailable()
    driver = TableDriver(memory_app.test_client())
    table_id, tokens = driver.full_table()
    response = hint(driver, table_id, tokens[0])
    assert response.status_code == 503 and response.json["code"] == "thinker_unavailable"
    assert response.headers["Retry-After"] == "1"

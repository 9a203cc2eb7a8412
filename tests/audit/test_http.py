"""The event log and the audit through HTTP: redaction per viewer while the match runs,
everything public once it is over, seqs without gaps, stable paging, and the deal
commitment exactly as the contract writes it."""

from __future__ import annotations

import hashlib
import io
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TableDriver

DOCS = Path(__file__).resolve().parents[2] / "README.md"  # its "Verifying a deal yourself" snippet
ORDER = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


def events(table: TableDriver, table_id: str, token: str, after: int = 0, limit: int = 500) -> dict[str, Any]:
    response = table.client.get(  # type: ignore[attr-defined]
        f"/v1/tables/{table_id}/events?after={after}&limit={limit}", headers=table.auth(token)
    )
    assert response.status_code == 200, response.json
    return response.json


def log(table: TableDriver, table_id: str, token: str) -> list[dict[str, Any]]:
    return events(table, table_id, token)["events"]


def audit(table: TableDriver, table_id: str, token: str) -> dict[str, Any]:
    response = table.client.get(f"/v1/tables/{table_id}/audit", headers=table.auth(token))  # type: ignore[attr-defined]
    assert response.status_code == 200, response.json
    return response.json


def of_type(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [item for item in items if item["type"] == kind]


@pytest.fixture
def running(table: TableDriver) -> tuple[str, list[str], str]:
    """Four humans in round 1 (passing left), and a spectator: (table_id, seat tokens, spectator token)."""
    created = table.create()
    tokens = [created["token"]]
    for name in ("Bruno", "Carla", "Davi"):
        tokens.append(table.join(created["invite_code"], name)["token"])
    spectator = table.join(created["invite_code"], "Eva")
    assert spectator["role"] == "spectator"
    return created["table_id"], tokens, spectator["token"]  # type: ignore[return-value]


def test_while_the_match_runs_each_viewer_sees_only_its_own_deal_and_passes(table: TableDriver, running: tuple[str, list[str], str]) -> None:
    table_id, tokens, spectator = running
    hands = [table.view(table_id, token)["you"]["hand"] for token in tokens]
    given = hands[0][:3]
    response = table.post(table_id, tokens[0], "passes", {"cards": given})
    assert response.status_code == 201  # type: ignore[attr-defined]

    logs = {seat: log(table, table_id, token) for seat, token in enumerate(tokens)}
    logs[None] = log(table, table_id, spectator)  # type: ignore[index]
    # The same events are listed for everyone, only hidden fields differ.
    shape = [(e["seq"], e["type"], e["seat"]) for e in logs[0]]
    assert all([(e["seq"], e["type"], e["seat"]) for e in items] == shape for items in logs.values())
    for seat, items in logs.items():
        (dealt,) = of_type(items, "round_dealt")
        assert dealt["data"]["salt"] is None
        assert dealt["data"]["hands"] == [hand if s == seat else None for s, hand in enumerate(hands)]
        (chosen,) = of_type(items, "pass_chosen")
        assert chosen["seat"] == 0
        assert chosen["data"]["cards"] == (sorted(given, key=ORDER.index) if seat == 0 else None)

    # After the exchange, the receiver (seat 1: passing left) sees what seat 0 gave; seats 2, 3 and spectators do not.
    table.pass_all(table_id, tokens)
    for seat, token in enumerate([*tokens, spectator]):
        seat_0_pass = next(e for e in of_type(log(table, table_id, token), "pass_chosen") if e["seat"] == 0)
        assert (seat_0_pass["data"]["cards"] is not None) == (seat in (0, 1)), seat
    # The audit shows the same, and the view's commitment for the round.
    view = table.view(table_id, tokens[2])
    rnd = audit(table, table_id, tokens[2])["matches"][0]["rounds"][0]
    assert rnd["commitment"] == view["deal_commitment"] and rnd["commitment_ok"] is None
    assert rnd["deal"] == {"hands": [None, None, hands[2], None], "salt": None}
    assert [p["cards"] is not None for p in rnd["passes"]] == [False, True, True, False]  # its own, and seat 1's (received)
    assert all(hand is None for hand in audit(table, table_id, spectator)["matches"][0]["rounds"][0]["deal"]["hands"])


def test_after_the_match_every_card_of_it_is_public_and_the_seqs_have_no_gaps(table: TableDriver, running: tuple[str, list[str], str]) -> None:
    table_id, tokens, spectator = running
    table.pass_all(table_id, tokens)
    for _ in range(5):
        assert table.play_legal(table_id, tokens).status_code == 201  # type: ignore[attr-defined]
    assert table.post(table_id, tokens[2], "resignation").status_code == 201  # type: ignore[attr-defined]
    version = table.view(table_id, tokens[0])["version"]

    full = None
    for token in [*tokens, spectator]:
        items = log(table, table_id, token)
        assert [e["seq"] for e in items] == list(range(1, version + 1))
        (dealt,) = of_type(items, "round_dealt")
        assert None not in dealt["data"]["hands"] and re.fullmatch(r"[0-9a-f]{64}", dealt["data"]["salt"])
        assert all(e["data"]["cards"] is not None for e in of_type(items, "pass_chosen"))
        full = full or items
        assert items == full  # identical for every viewer now

    record = audit(table, table_id, spectator)
    (rnd,) = record["matches"][0]["rounds"]
    assert rnd["ended"] == "resign" and rnd["commitment_ok"] is True
    assert rnd["deal"]["hands"] == dealt["data"]["hands"]
    assert len(rnd["tricks"]) == 1 and rnd["current_trick"]["cards"] and rnd["current_trick"]["winner"] is None
    assert record["matches"][0]["result"]["losers"] == [2]


def test_paging_with_after_and_limit_is_stable(table: TableDriver, running: tuple[str, list[str], str]) -> None:
    table_id, tokens, _ = running
    table.pass_all(table_id, tokens)
    table.play_legal(table_id, tokens)
    whole = log(table, table_id, tokens[1])
    version = whole[-1]["seq"]
    for limit in (1, 3, 7):
        pages, after = [], 0
        while True:
            page = events(table, table_id, tokens[1], after, limit)
            assert len(page["events"]) <= limit
            if not page["events"]:
                assert page["next_after"] == after
                break
            assert page["next_after"] == page["events"][-1]["seq"]
            assert page == events(table, table_id, tokens[1], after, limit)  # asking again gives the same page
            pages.extend(page["events"])
            after = page["next_after"]
        assert pages == whole
    assert events(table, table_id, tokens[1], version + 10, 5) == {"events": [], "next_after": version + 10}


def test_the_audit_needs_a_token_of_that_table(table: TableDriver, running: tuple[str, list[str], str]) -> None:
    table_id, tokens, _ = running
    other = table.create(name="Zé")
    assert table.client.get(f"/v1/tables/{table_id}/audit").status_code == 401  # type: ignore[attr-defined]
    unknown = table.client.get(f"/v1/tables/{table_id}/audit", headers=table.auth("x" * 43))  # type: ignore[attr-defined]
    assert unknown.status_code == 401 and unknown.json["code"] == "unauthenticated"
    foreign = table.client.get(f"/v1/tables/{table_id}/audit", headers=table.auth(other["token"]))  # type: ignore[attr-defined]
    assert foreign.status_code == 404 and foreign.json["code"] == "not_found"
    assert foreign.headers["Content-Type"].startswith("application/problem+json")


def revealed_deal(table: TableDriver) -> tuple[dict[str, Any], str]:
    """A round_dealt event revealed by a resignation, and the view's commitment seen during that round."""
    created = table.create()
    table_id, token = created["table_id"], created["token"]
    response = table.post(table_id, token, "bots", {})
    assert response.status_code == 201  # type: ignore[attr-defined]
    published = response.json["deal_commitment"]  # type: ignore[attr-defined]
    assert table.post(table_id, token, "resignation").status_code == 201  # type: ignore[attr-defined]
    (dealt,) = of_type(log(table, table_id, token), "round_dealt")
    return dealt, published


def test_the_deal_commitment_is_the_sha256_of_the_json_text_the_contract_spells_out(table: TableDriver) -> None:
    dealt, published = revealed_deal(table)
    hands, salt = dealt["data"]["hands"], dealt["data"]["salt"]
    # Each hand sorted by suit C D H S then rank 2..A; one deck; 32 random bytes of salt as lowercase hex.
    assert all(hand == sorted(hand, key=ORDER.index) and len(hand) == 13 for hand in hands)
    assert sorted(card for hand in hands for card in hand) == sorted(ORDER)
    assert re.fullmatch(r"[0-9a-f]{64}", salt)
    # The text written by hand: keys sorted ("hands" < "salt"), no spaces.
    text = '{"hands":[' + ",".join("[" + ",".join(f'"{card}"' for card in hand) + "]" for hand in hands) + '],"salt":"' + salt + '"}'
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == dealt["data"]["commitment"] == published


def docs_snippet() -> dict[str, Any]:
    (code,) = re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)
    namespace: dict[str, Any] = {}
    exec(compile(code, str(DOCS), "exec"), namespace)  # noqa: S102 - the documented snippet itself
    return namespace


def test_the_documented_snippet_verifies_a_real_revealed_deal(table: TableDriver) -> None:
    snippet = docs_snippet()
    dealt, _ = revealed_deal(table)
    assert snippet["verify_deal"](dealt) is True
    # A pasted event as JSON text works the same, and a changed card is caught.
    assert snippet["verify_deal"](json.loads(json.dumps(dealt))) is True
    tampered = json.loads(json.dumps(dealt))
    hands = tampered["data"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    assert snippet["verify_deal"](tampered) is False
    hidden = json.loads(json.dumps(dealt))
    hidden["data"]["salt"] = None
    with pytest.raises(ValueError):
        snippet["verify_deal"](hidden)


def test_the_documented_snippet_checks_a_whole_table_over_http(table: TableDriver, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = docs_snippet()
    created = table.create()
    table_id, token = created["table_id"], created["token"]
    table.post(table_id, token, "bots", {})
    table.post(table_id, token, "resignation")

    def urlopen(request: urllib.request.Request) -> io.BytesIO:
        # The test client stands in for the network.
        response = table.client.get(request.full_url.removeprefix("http://copas.test"), headers=dict(request.header_items()))  # type: ignore[attr-defined]
        assert response.status_code == 200
        return io.BytesIO(response.data)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    results = snippet["verify_table"]("http://copas.test", table_id, token)
    assert list(results.values()) == [True] and len(results) == 1

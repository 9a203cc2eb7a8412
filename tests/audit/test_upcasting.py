"""Stored events keep replaying: every event carries its schema version and is read through upcasters.

- `match_v1.json` is a complete 50-point match as schema version 1 stores it.
  It is frozen: whatever changes in the codec or the engine, it must replay
  to the same scores and result (bump SCHEMA_VERSION and add an upcaster
  rather than break it).
- `legacy_v0.json` is a stream of an imagined version 0 that named two fields
  differently (`pass_chosen.given`, `card_played.played`). Production has no
  version 0; a test-local upcaster shows the mechanism end to end.
"""

from __future__ import annotations

import dataclasses

import pytest

from api.engine import replay
from api.engine.audit import StreamAuditor, audit_record
from api.engine.events import CardPlayed, PassChosen
from api.engine.viewers import SPECTATOR
from api.store import codec
from api.store.ports import NewEvent
from api.store.sql import SqlStore

from .helpers import fixture_stream, run_audit, store_table


def rename(old: str, new: str) -> codec.Upcaster:
    def step(data: dict) -> dict:  # type: ignore[type-arg]
        data = dict(data)
        data[new] = data.pop(old)
        return data

    return step


@pytest.fixture
def v0_upcasters(monkeypatch: pytest.MonkeyPatch) -> None:
    """The upcasters a release that renamed those fields would ship (test-local: nothing is bumped)."""
    monkeypatch.setitem(codec.UPCASTERS, ("pass_chosen", 0), rename("given", "cards"))
    monkeypatch.setitem(codec.UPCASTERS, ("card_played", 0), rename("played", "card"))


def test_the_stored_v1_match_replays_to_its_known_result() -> None:
    stream = fixture_stream("match_v1.json")
    assert {stored.schema_version for stored in stream} == {codec.SCHEMA_VERSION} == {1}
    state = replay(codec.decode_all(stream))
    match = state.match
    assert state.version == 343 and state.status.value == "finished"
    assert match is not None and match.result is not None
    assert match.scores == (50, 41, 30, 35)
    assert [record.scores for record in match.history][-1] == (50, 41, 30, 35)
    assert len(match.history) == 6
    assert match.result.reason.value == "target" and match.result.winners == (2,)
    record = audit_record(state, SPECTATOR)
    assert all(rnd["commitment_ok"] is True for rnd in record["matches"][0]["rounds"])


def test_the_stored_v1_match_passes_the_stream_audit() -> None:
    auditor = StreamAuditor()
    for recorded in codec.decode_all(fixture_stream("match_v1.json")):
        auditor.feed(recorded)
    auditor.finish()
    assert auditor.findings == []


def test_an_old_field_name_is_read_through_its_upcaster(v0_upcasters: None) -> None:
    stream = fixture_stream("legacy_v0.json")
    passed = next(stored for stored in stream if stored.type == "pass_chosen")
    assert passed.schema_version == 0 and "given" in passed.data and "cards" not in passed.data

    recorded = codec.decode_all(stream)

    assert recorded[6].event == PassChosen(0, 1, 1, ("QC", "KC", "AC"))
    assert recorded[10].event == CardPlayed(0, "2C")
    state = replay(recorded)
    rnd = state.round
    assert rnd is not None and rnd.exchanged and len(rnd.tricks) == 1
    assert rnd.tricks[0].winner == 1  # AC took trick 1
    assert sorted(rnd.hands[0]) == sorted(["3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QS", "KS", "AS"])


def test_the_upcaster_is_what_makes_the_old_stream_readable() -> None:
    legacy = next(stored for stored in fixture_stream("legacy_v0.json") if stored.type == "pass_chosen")
    with pytest.raises(codec.UnknownEvent, match="lacks 'cards'"):
        codec.decode(legacy)
    # A current event is not touched by the upcasters of older versions.
    current = dataclasses.replace(legacy, schema_version=1, data={"match": 1, "round": 1, "cards": ["2C", "3C", "4C"]})
    assert codec.decode(current).event == PassChosen(0, 1, 1, ("2C", "3C", "4C"))


def test_upcasters_chain_from_each_version_to_the_current_one(monkeypatch: pytest.MonkeyPatch, v0_upcasters: None) -> None:
    # Pretend version 2 renamed `card` again: a v0 event goes through both steps, a v1 event through one.
    monkeypatch.setattr(codec, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(codec.UPCASTERS, ("card_played", 1), rename("card", "c2"))
    assert codec.upcast("card_played", 0, {"played": "QS"}) == {"c2": "QS"}
    assert codec.upcast("card_played", 1, {"card": "QS"}) == {"c2": "QS"}
    assert codec.upcast("card_played", 2, {"c2": "QS"}) == {"c2": "QS"}


def test_copas_audit_reads_a_legacy_stream_from_the_database(database_url: str, v0_upcasters: None) -> None:
    stream = fixture_stream("legacy_v0.json")
    store = SqlStore(database_url)
    try:
        store_table(
            store,
            "legacy",
            [NewEvent(s.type, s.seat, s.data, schema_version=s.schema_version) for s in stream],
            status="playing",
        )
        store_table(
            store,
            "v1match",
            [NewEvent(s.type, s.seat, s.data, schema_version=s.schema_version) for s in fixture_stream("match_v1.json")],
            status="finished",
        )
    finally:
        store.dispose()

    status, out, _ = run_audit("--all", "--database-url", database_url, "--no-progress")

    assert status == 0, out
    assert "audited 2 tables: 357 events, 2 matches (1 finished)" in out

"""`copas audit` replays every table from the database and reports what does not add up.

Each test stores real bot matches with the store's `append`, tampers with the
rows the way a bad migration, a manual edit or a lost write would, and checks
that the command names the table and seq and exits non-zero.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import delete, select, update

from api.engine import replay
from api.engine.events import CardPlayed, Recorded, RoundDealt
from api.store import models as m
from api.store.sql import SqlStore, make_engine

from .helpers import T0, bot_match, run_audit, store_table

FINISHED = ("done-a", "done-b", "done-c")
RUNNING = "running"


@pytest.fixture
def audited_db(database_url: str) -> Iterator[str]:
    """A database with three finished bot matches and one table in the middle of a round."""
    store = SqlStore(database_url)
    try:
        for seed, table_id in enumerate(FINISHED, start=1):
            events, state = bot_match(seed)
            assert state.status.value == "finished"
            store_table(store, table_id, events, status="finished")
        events, _ = bot_match(9)
        prefix = events[:150]  # in the middle of the tricks of a round
        state = replay(Recorded(seq, T0, event) for seq, event in enumerate(prefix, start=1))
        assert state.status.value == "playing"
        store_table(store, RUNNING, prefix, status="playing")
    finally:
        store.dispose()
    yield database_url


def sql(url: str, statement: Any) -> list[Any]:
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(statement)
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


def stored_event(url: str, table_id: str, event_type: str, nth: int = 0) -> Any:
    e = m.events
    rows = sql(url, select(e).where(e.c.table_id == table_id, e.c.type == event_type).order_by(e.c.seq))
    return rows[nth]


def set_data(url: str, table_id: str, seq: int, data: dict[str, Any]) -> None:
    e = m.events
    sql(url, update(e).where(e.c.table_id == table_id, e.c.seq == seq).values(data=data))


def findings(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("table ")]


def test_a_clean_database_passes_the_audit_and_exits_0(audited_db: str) -> None:
    status, out, err = run_audit("--all", "--database-url", audited_db)
    assert status == 0, out
    assert findings(out) == []
    assert "audited 4 tables" in out and "4 matches (3 finished)" in out and "no findings" in out
    # The progress bar is drawn on stderr, in place, and ends complete.
    assert err.startswith("\r[") and "4/4 tables" in err.splitlines()[-1]


def test_one_table_is_audited_by_its_id(audited_db: str) -> None:
    status, out, _ = run_audit("--table", RUNNING, "--database-url", audited_db)
    assert status == 0, out
    assert "audited 1 table:" in out and "1 matches (0 finished)" in out


def test_an_unknown_table_is_a_usage_error(audited_db: str) -> None:
    status, _, err = run_audit("--table", "nope", "--database-url", audited_db)
    assert status == 2 and "no table 'nope'" in err


def test_an_edited_deal_breaks_its_commitment(audited_db: str) -> None:
    dealt = stored_event(audited_db, "done-b", "round_dealt", nth=2)
    hands = [list(hand) for hand in dealt.data["hands"]]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]  # swap a card between seats 0 and 1, keep them sorted
    hands = [sorted(hand, key=lambda card: ("CDHS".index(card[1]), "23456789TJQKA".index(card[0]))) for hand in hands]
    set_data(audited_db, "done-b", dealt.seq, {**dealt.data, "hands": hands})

    status, out, _ = run_audit("--all", "--database-url", audited_db, "--no-progress")

    assert status == 1
    assert any(
        line.startswith(f"table done-b seq {dealt.seq}: commitment_mismatch") for line in findings(out)
    ), out
    assert all(line.startswith("table done-b ") for line in findings(out))


def test_a_deal_that_is_not_one_deck_is_reported(audited_db: str) -> None:
    dealt = stored_event(audited_db, "done-a", "round_dealt")
    hands = [list(hand) for hand in dealt.data["hands"]]
    hands[1][0] = hands[0][0]  # the same card twice, one card missing
    set_data(audited_db, "done-a", dealt.seq, {**dealt.data, "hands": hands})

    status, out, _ = run_audit("--table", "done-a", "--database-url", audited_db)

    assert status == 1
    assert f"table done-a seq {dealt.seq}: bad_deal: round_dealt: the four hands are not 13 cards each" in out


def test_a_dropped_event_leaves_a_gap_in_the_seqs(audited_db: str) -> None:
    e = m.events
    sql(audited_db, delete(e).where(e.c.table_id == "done-c", e.c.seq == 100))

    status, out, _ = run_audit("--all", "--database-url", audited_db, "--no-progress")

    assert status == 1
    assert "table done-c seq 101: seq_gap: events 100 are missing before seq 101" in out


def test_a_dropped_last_event_disagrees_with_the_table_row(audited_db: str) -> None:
    e, t = m.events, m.tables
    version = sql(audited_db, select(t.c.version).where(t.c.table_id == RUNNING))[0][0]
    sql(audited_db, delete(e).where(e.c.table_id == RUNNING, e.c.seq == version))

    status, out, _ = run_audit("--table", RUNNING, "--database-url", audited_db)

    assert status == 1
    assert f"table {RUNNING} table row: row_version: tables.version is {version}, the stream ends at seq {version - 1}" in out


def test_a_changed_table_row_is_reported(audited_db: str) -> None:
    t = m.tables
    sql(audited_db, update(t).where(t.c.table_id == "done-a").values(version=t.c.version + 1))
    sql(audited_db, update(t).where(t.c.table_id == RUNNING).values(status="finished"))

    status, out, _ = run_audit("--all", "--database-url", audited_db, "--no-progress")

    assert status == 1
    lines = findings(out)
    assert any(line.startswith("table done-a table row: row_version:") for line in lines), out
    assert f"table {RUNNING} table row: row_status: tables.status is 'finished', the replay says 'playing'" in lines
    assert "2 findings in 2 tables" in out


def test_an_illegal_card_play_is_reported(audited_db: str) -> None:
    # The first trick is led with 2C; make the leader lead another card of its hand.
    dealt = stored_event(audited_db, "done-a", "round_dealt")
    first_play = stored_event(audited_db, "done-a", "card_played")
    hand = dealt.data["hands"][first_play.seat] if dealt.data["round"] == 1 else None
    assert hand is not None and first_play.data == {"card": "2C"}
    set_data(audited_db, "done-a", first_play.seq, {"card": "3C" if "3C" in hand else hand[-1]})

    status, out, _ = run_audit("--table", "done-a", "--database-url", audited_db)

    assert status == 1
    assert f"table done-a seq {first_play.seq}: illegal_play: card_played: seat {first_play.seat} played" in out
    assert "must_lead_two_of_clubs" in out or "card_not_in_hand" in out


def test_an_event_that_does_not_decode_stops_the_replay_and_is_reported(audited_db: str) -> None:
    play = stored_event(audited_db, "done-c", "card_played", nth=5)
    set_data(audited_db, "done-c", play.seq, {"kard": "2C"})

    status, out, _ = run_audit("--table", "done-c", "--database-url", audited_db)

    assert status == 1
    assert f"table done-c seq {play.seq}: undecodable: card_played v1:" in out


def test_the_stream_auditor_accepts_every_event_of_real_matches() -> None:
    from api.engine.audit import StreamAuditor

    for seed in (11, 12):
        events, state = bot_match(seed)
        auditor = StreamAuditor()
        for seq, event in enumerate(events, start=1):
            auditor.feed(Recorded(seq, T0, event))
        assert auditor.finish() == state
        assert auditor.findings == []
        assert sum(isinstance(event, RoundDealt) for event in events) == len(state.match.history)  # type: ignore[union-attr]
        assert sum(isinstance(event, CardPlayed) for event in events) == 52 * len(state.match.history)  # type: ignore[union-attr]

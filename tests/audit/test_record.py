"""The audit record (`audit_record`) of a scripted match equals the record written out by hand,
keeps the secrecy of the view while the match runs, and agrees with the view on real matches."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from api.engine import replay, table_view
from api.engine.audit import StreamAuditor, audit_record
from api.engine.cards import DECK, RANKS, rank_value
from api.engine.commitment import deal_commitment
from api.engine.events import (
    CardPlayed,
    Event,
    MatchStarted,
    PassChosen,
    PlayerSeated,
    Recorded,
    Resigned,
    RevokeAccused,
    RoundDealt,
    TableCreated,
)
from api.engine.state import Options, Revoke, TableState
from api.engine.viewers import SPECTATOR, Viewer
from api.engine.rule_set import CLASSIC, as_plain

from .helpers import bot_match

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
SALT_1, SALT_2 = "ab" * 32, "cd" * 32


def suit(letter: str) -> list[str]:
    return [rank + letter for rank in RANKS]


# Round 1: each seat is dealt one suit. Round 2: the suits move one seat on.
HANDS_1 = [suit("C"), suit("D"), suit("H"), suit("S")]
HANDS_2 = [suit("D"), suit("H"), suit("S"), suit("C")]
COMMITMENT_1 = deal_commitment(HANDS_1, SALT_1)
COMMITMENT_2 = deal_commitment(HANDS_2, SALT_2)


def c(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# A revoke-allowed table. Round 1 (pass left): each seat passes its three highest
# cards; trick 1 is won by seat 1 with AC; on trick 2 seat 0 still holds clubs but
# plays QS (a revoke), seat 2 accuses seat 0, and seat 0 takes the 26 points.
# Round 2 (pass right): seats 1 and 3 choose their passes, then seat 2 resigns.
SCRIPT: list[Event] = [
    TableCreated(0, "Ana", Options(revoke=Revoke.ALLOWED)),
    PlayerSeated(1, "Bia"),
    PlayerSeated(2, "Caio"),
    PlayerSeated(3, "Duda"),
    MatchStarted(1),
    RoundDealt(1, 1, COMMITMENT_1, tuple(tuple(h) for h in HANDS_1), SALT_1),  # seq 6
    PassChosen(0, 1, 1, c("QC KC AC")),
    PassChosen(1, 1, 1, c("QD KD AD")),
    PassChosen(2, 1, 1, c("QH KH AH")),
    PassChosen(3, 1, 1, c("QS KS AS")),  # seq 10: the exchange
    CardPlayed(0, "2C"),
    CardPlayed(1, "AC"),
    CardPlayed(2, "AD"),
    CardPlayed(3, "JS"),  # seq 14: trick 1 to seat 1
    CardPlayed(1, "KC"),
    CardPlayed(2, "KD"),  # seq 16: trick 2 half played
    CardPlayed(3, "TS"),
    CardPlayed(0, "QS"),  # seq 18: seat 0 revokes; trick 2 to seat 1
    RevokeAccused(2, 0, True, 0),
    RoundDealt(1, 2, COMMITMENT_2, tuple(tuple(h) for h in HANDS_2), SALT_2),  # seq 20
    PassChosen(1, 1, 2, c("2H 3H 4H")),
    PassChosen(3, 1, 2, c("2C 3C 4C")),  # seq 22
    Resigned(2),  # seq 23
]


def state_after(seq: int) -> TableState:
    return replay(Recorded(n, T0, event) for n, event in enumerate(SCRIPT[:seq], start=1))


def trick(number: int, leader: int, plays: str, winner: int | None) -> dict[str, Any]:
    cards = [{"seat": (leader + i) % 4, "card": card} for i, card in enumerate(plays.split())]
    return {"number": number, "leader": leader, "cards": cards, "winner": winner}


def passes(direction_offset: int, chosen: dict[int, str | None]) -> list[dict[str, Any]]:
    """One entry per seat; `chosen` maps a seat to its visible cards (None: chosen but hidden)."""
    return [
        {
            "seat": seat,
            "to": (seat + direction_offset) % 4,
            "chosen": seat in chosen,
            "cards": list(c(chosen[seat])) if chosen.get(seat) else None,
        }
        for seat in range(4)
    ]


ROUND_1 = {
    "round": 1,
    "pass_direction": "left",
    "ended": "accusation",
    "commitment": COMMITMENT_1,
    "deal": {"hands": HANDS_1, "salt": SALT_1},
    "commitment_ok": True,
    "passes": passes(1, {0: "QC KC AC", 1: "QD KD AD", 2: "QH KH AH", 3: "QS KS AS"}),
    "tricks": [trick(1, 0, "2C AC AD JS", 1), trick(2, 1, "KC KD TS QS", 1)],
    "current_trick": None,
    "points": [26, 0, 0, 0],
    "moon": None,
    "accusation": {"accuser": 2, "accused": 0, "revoke_found": True, "penalized_seat": 0},
    "scores": [26, 0, 0, 0],
}

EXPECTED = {
    "version": 23,
    "status": "finished",
    "options": {**as_plain(CLASSIC), "target_score": 100, "revoke": "allowed", "tie": "share"},
    "seats": [
        {"seat": 0, "name": "Ana", "kind": "human"},
        {"seat": 1, "name": "Bia", "kind": "human"},
        {"seat": 2, "name": "Caio", "kind": "human"},
        {"seat": 3, "name": "Duda", "kind": "human"},
    ],
    "matches": [
        {
            "match": 1,
            "status": "finished",
            "rounds": [
                ROUND_1,
                {
                    "round": 2,
                    "pass_direction": "right",
                    "ended": "resign",
                    "commitment": COMMITMENT_2,
                    "deal": {"hands": HANDS_2, "salt": SALT_2},
                    "commitment_ok": True,
                    "passes": passes(3, {1: "2H 3H 4H", 3: "2C 3C 4C"}),
                    "tricks": [],
                    "current_trick": None,
                    "points": None,
                    "moon": None,
                    "accusation": None,
                    "scores": None,
                },
            ],
            "scores": [26, 0, 0, 0],
            "result": {
                "reason": "resign",
                "winners": [1, 3],
                "losers": [2],
                "standings": [
                    {"seat": 1, "score": 0, "rank": 1},
                    {"seat": 3, "score": 0, "rank": 1},
                    {"seat": 0, "score": 26, "rank": 3},
                    {"seat": 2, "score": 0, "rank": 4},
                ],
            },
        }
    ],
}


def test_the_scripted_match_is_a_legal_stream() -> None:
    auditor = StreamAuditor()
    for seq, event in enumerate(SCRIPT, start=1):
        auditor.feed(Recorded(seq, T0, event))
    auditor.finish()
    assert auditor.findings == []


@pytest.mark.parametrize("viewer", [SPECTATOR, Viewer(seat=0), Viewer(seat=2)], ids=["spectator", "seat 0", "seat 2"])
def test_the_record_of_the_finished_scripted_match_is_the_one_written_by_hand(viewer: Viewer) -> None:
    # The match is over: every card of it is public, to everyone alike.
    assert audit_record(state_after(23), viewer) == EXPECTED


def test_while_passing_a_seat_sees_its_own_deal_and_pass_only() -> None:
    state = state_after(22)  # round 2: seats 1 and 3 have passed, 0 and 2 not yet
    match = audit_record(state, Viewer(seat=1))["matches"][0]
    assert match["status"] == "running" and match["result"] is None
    assert match["rounds"][0] == ROUND_1  # a finished round is public
    current = match["rounds"][1]
    assert current["deal"] == {"hands": [None, HANDS_2[1], None, None], "salt": None}
    assert current["commitment"] == COMMITMENT_2 and current["commitment_ok"] is None
    assert current["passes"] == passes(3, {1: "2H 3H 4H", 3: None})
    assert current["ended"] is None and current["points"] is None and current["scores"] is None

    spectator = audit_record(state, SPECTATOR)["matches"][0]["rounds"][1]
    assert spectator["deal"] == {"hands": [None, None, None, None], "salt": None}
    assert spectator["passes"] == passes(3, {1: None, 3: None})


def test_after_the_exchange_a_seat_also_sees_the_pass_it_received() -> None:
    state = state_after(16)  # round 1, trick 2 half played
    current = audit_record(state, Viewer(seat=1))["matches"][0]["rounds"][0]
    # Passing left, seat 1 received seat 0's cards; seats 2 and 3 stay hidden.
    assert current["passes"] == passes(1, {0: "QC KC AC", 1: "QD KD AD", 2: None, 3: None})
    assert current["deal"]["hands"] == [None, HANDS_1[1], None, None]
    assert current["tricks"] == [trick(1, 0, "2C AC AD JS", 1)]
    assert current["current_trick"] == trick(2, 1, "KC KD", None)


def test_the_record_never_shows_a_card_the_view_hides() -> None:
    """While round 2 is passing, no hidden card of it appears in the record of another viewer."""
    state = state_after(22)
    for seat in range(4):
        record = audit_record(state, Viewer(seat=seat))
        current = record["matches"][0]["rounds"][1]
        own = set(table_view(state, Viewer(seat=seat))["you"]["hand"]) | set(HANDS_2[seat])
        shown = {card for hand in current["deal"]["hands"] if hand for card in hand}
        shown |= {card for entry in current["passes"] if entry["cards"] for card in entry["cards"]}
        assert shown <= own


@pytest.mark.parametrize("seed", [3, 4])
def test_the_record_of_a_complete_bot_match_agrees_with_the_rules_and_the_view(seed: int) -> None:
    _, state = bot_match(seed)
    record = audit_record(state, Viewer(seat=0))
    view = table_view(state, Viewer(seat=0))
    (match,) = record["matches"]
    assert match["status"] == "finished"
    assert match["result"] == view["result"]
    scores = [0, 0, 0, 0]
    for entry, history in zip(match["rounds"], view["history"], strict=True):
        assert entry["round"] == history["round"]
        assert (entry["points"], entry["moon"], entry["scores"]) == (history["points"], history["moon"], history["scores"])
        assert entry["ended"] == "tricks" and entry["commitment_ok"] is True
        hands = entry["deal"]["hands"]
        assert sorted(card for hand in hands for card in hand) == sorted(DECK)
        assert deal_commitment(hands, entry["deal"]["salt"]) == entry["commitment"]
        assert len(entry["tricks"]) == 13
        leader = next(seat for seat, hand in enumerate(hands) if "2C" in hand) if entry["pass_direction"] == "none" else None
        taken = [0, 0, 0, 0]
        for number, played in enumerate(entry["tricks"], start=1):
            assert played["number"] == number
            if leader is not None:
                assert played["leader"] == leader
            led = played["cards"][0]["card"][1]
            winner = max((p for p in played["cards"] if p["card"][1] == led), key=lambda p: rank_value(p["card"]))
            assert played["winner"] == winner["seat"]
            taken[winner["seat"]] += sum(1 if p["card"][1] == "H" else 13 if p["card"] == "QS" else 0 for p in played["cards"])
            leader = played["winner"]
        assert sum(taken) == 26
        expected = taken if 26 not in taken else [0 if points == 26 else 26 for points in taken]
        assert entry["points"] == expected
        scores = [a + b for a, b in zip(scores, entry["points"], strict=True)]
        assert entry["scores"] == scores
    assert match["scores"] == scores

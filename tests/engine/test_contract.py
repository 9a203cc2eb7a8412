"""The contract's "Decisions on details": error-code order, the view, secrecy, commitments."""

from __future__ import annotations

import hashlib
import random

import pytest

from api.engine import errors, legal_moves, playable, table_view
from api.engine.cards import DECK, sorted_cards
from api.engine.commands import ChoosePass
from api.engine.commitment import commitment_matches, deal_commitment
from api.engine.decide import deal
from api.engine.events import PassChosen
from api.engine.redaction import visible_event
from api.engine.viewers import SPECTATOR, Viewer

from .scenario import (
    SALT,
    accuse,
    card_strings,
    do,
    hand,
    known_cards,
    options,
    pass_cards,
    play,
    play_out,
    plays,
    record,
    resign,
    seated,
    dealt,
    table,
)
from .test_rules import ONE_SUIT_EACH, REVOKER, refused

# Seat 0 holds the two of clubs, hearts and the queen of spades.
MIXED = (
    "2C 3C 4C 5C 6C 2D 3D 4D 2H 3H 4H QS AS",
    "7C 8C 9C TC 5D 6D 7D 8D 5H 6H 7H 2S 3S",
    "JC QC KC 9D TD JD 8H 9H TH 4S 5S 6S 7S",
    "AC QD KD AD JH QH KH AH 8S 9S TS JS KS",
)


# -- error codes: the first that applies, in the contract's order ------------------------


def test_match_not_running_comes_first() -> None:
    finished = resign(table(*ONE_SUIT_EACH, round=4), 1)  # round 4: no pass either
    with refused("match_not_running"):
        pass_cards(finished, 0, "2C 3C 4C")
    with refused("match_not_running"):
        play(finished, 0, "XX")
    waiting = __import__("api.engine", fromlist=["replay"]).replay(record(seated()[:3]))
    with refused("match_not_running"):
        play(waiting, 0, "2C")


def test_no_pass_this_round_comes_before_wrong_phase_and_card_not_in_hand() -> None:
    state = table(*ONE_SUIT_EACH, round=4)  # the tricks are being played
    with refused("no_pass_this_round"):
        pass_cards(state, 0, "2H 3H 4H")


def test_wrong_phase_comes_before_not_your_turn_and_card_not_in_hand() -> None:
    passing = table(*MIXED, round=1)
    with refused("wrong_phase"):
        play(passing, 1, "2C")  # a play while passing, not its turn, not its card
    started = passing
    for seat in range(4):
        started = pass_cards(started, seat, " ".join(hand(MIXED[seat])[-3:]))
    assert not started.round.is_passing
    with refused("wrong_phase"):
        pass_cards(started, 0, "2H 3H KD")  # a pass during the tricks of a passing round
    with refused("wrong_phase"):
        accuse(table(*MIXED, round=1, opts=options(revoke="allowed")), 0, 1)  # an accusation outside the tricks


def test_not_your_turn_comes_before_card_not_in_hand() -> None:
    state = table(*MIXED, round=4)
    with refused("not_your_turn"):
        play(state, 1, "AC")


def test_card_not_in_hand_comes_before_pass_already_submitted() -> None:
    state = pass_cards(table(*MIXED, round=1), 0, "2H 3H 4H")
    with refused("card_not_in_hand"):
        pass_cards(state, 0, "AC KC QC")
    with refused("card_not_in_hand"):
        pass_cards(state, 0, "2C 3C AC")
    with refused("pass_already_submitted"):
        pass_cards(state, 0, "2C 3C 4C")


def test_card_not_in_hand_comes_before_must_lead_two_of_clubs() -> None:
    with refused("card_not_in_hand"):
        play(table(*MIXED, round=4), 0, "KH")


def test_must_lead_two_of_clubs_comes_before_the_point_and_hearts_rules() -> None:
    state = table(*MIXED, round=4)
    for card in ("QS", "2H", "AS", "2D"):
        with refused("must_lead_two_of_clubs"):
            play(state, 0, card)


def test_must_follow_suit_comes_before_no_points_on_first_trick() -> None:
    state = plays(table(*MIXED, round=4), "2C")
    with refused("must_follow_suit"):
        play(state, 1, "5H")
    with refused("no_points_on_first_trick"):
        play(plays(table(*ONE_SUIT_EACH, round=4), "2C 2D 2H"), 3, "QS")


def test_a_refused_command_changes_nothing() -> None:
    state = table(*MIXED, round=4)
    before = state
    with pytest.raises(errors.RuleViolation):
        play(state, 0, "QS")
    assert state == before and state.version == before.version


# -- the view ------------------------------------------------------------------------------


def test_legal_moves_while_passing_are_the_hand_until_the_seat_has_passed() -> None:
    state = table(*MIXED, round=1)
    assert legal_moves(state, 2) == hand(MIXED[2]) and playable(state, 2) == hand(MIXED[2])
    state = pass_cards(state, 2, "JC QC KC")
    assert legal_moves(state, 2) == () and playable(state, 2) == ()


def test_legal_moves_and_playable_are_empty_for_a_seat_that_cannot_act() -> None:
    state = table(*MIXED, round=4, opts=options(revoke="allowed"))
    assert [legal_moves(state, seat) for seat in range(4)] == [("2C",), (), (), ()]
    assert [playable(state, seat) for seat in range(4)] == [("2C",), (), (), ()]
    view = table_view(state, Viewer(seat=2))
    assert view["you"]["legal_moves"] == [] and view["you"]["playable"] == []
    assert table_view(state, SPECTATOR)["you"]["hand"] == []


def test_after_a_pass_the_view_shows_ten_cards_and_the_given_three() -> None:
    state = pass_cards(table(*MIXED, round=1), 0, "QS AS 4H")
    you = table_view(state, Viewer(seat=0))["you"]
    assert you["hand"] == list(hand("2C 3C 4C 5C 6C 2D 3D 4D 2H 3H"))
    assert you["pass"]["given"] == ["4H", "QS", "AS"] and you["pass"]["received"] is None
    seats = table_view(state, Viewer(seat=0))["seats"]
    assert [s["hand_size"] for s in seats] == [10, 13, 13, 13]
    assert [s["has_passed"] for s in seats] == [True, False, False, False]


def test_pass_secrecy_nobody_else_sees_a_pass_before_the_exchange() -> None:
    state = table(*MIXED, round=1)
    passes = {0: "QS AS 4H", 1: "2S 3S 7H", 2: "JC QC KC", 3: "AH KH QH"}
    for seat in range(3):
        state = pass_cards(state, seat, passes[seat])
        for viewer in (Viewer(seat=0), Viewer(seat=1), Viewer(seat=2), Viewer(seat=3), SPECTATOR):
            assert card_strings(table_view(state, viewer)) <= known_cards(state, viewer.seat)
    # Seat 1 receives seat 0's pass (left), but sees none of it yet.
    assert not card_strings(table_view(state, Viewer(seat=1))) & set(hand(passes[0]))
    state = pass_cards(state, 3, passes[3])
    # After the exchange the receiver sees what arrived, and nobody else does.
    received = table_view(state, Viewer(seat=1))["you"]["pass"]["received"]
    assert received == list(hand(passes[0]))
    assert not card_strings(table_view(state, Viewer(seat=2))) & set(hand(passes[0]))
    assert not card_strings(table_view(state, SPECTATOR)) & set(hand(passes[0]))


def test_between_tricks_the_view_shows_the_next_empty_trick_and_the_last_one() -> None:
    state = plays(table(*ONE_SUIT_EACH, round=4), "2C 2D 2H 2S")
    view = table_view(state, SPECTATOR)
    assert view["trick"] == {"number": 2, "leader": 0, "cards": []}
    assert view["last_trick"]["winner"] == 0 and [c["card"] for c in view["last_trick"]["cards"]] == ["2C", "2D", "2H", "2S"]
    assert [s["round_points"] for s in view["seats"]] == [1, 0, 0, 0]


def test_a_moon_round_shows_0_26_26_26_with_the_shooter_in_history() -> None:
    state = play_out(table(*ONE_SUIT_EACH, round=4))
    entry = table_view(state, SPECTATOR)["history"][-1]
    assert entry["round"] == 4 and entry["points"] == [0, 26, 26, 26] and entry["moon"] == 0
    assert entry["accusation"] is None


# -- provable deals --------------------------------------------------------------------------


def test_the_deal_commitment_is_sha256_of_the_byte_exact_json() -> None:
    hands = [hand(text) for text in MIXED]
    # Built by hand: sorted keys, no spaces, hands sorted by suit C D H S then rank 2..A.
    text = '{"hands":[' + ",".join("[" + ",".join(f'"{c}"' for c in h) + "]" for h in hands) + '],"salt":"' + SALT + '"}'
    assert text.startswith('{"hands":[["2C","3C","4C","5C","6C","2D","3D","4D","2H","3H","4H","QS","AS"],')
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert deal_commitment(hands, SALT) == expected
    # The order the hands are given in does not matter: they are sorted first.
    assert deal_commitment([tuple(reversed(h)) for h in hands], SALT) == expected
    assert commitment_matches(expected, hands, SALT)
    assert not commitment_matches(expected, hands, "cd" * 32)
    state = table(*MIXED, round=1)
    assert table_view(state, SPECTATOR)["deal_commitment"] == expected == dealt(1, 1, MIXED).commitment


def test_a_random_deal_commits_to_its_hands_and_salt() -> None:
    event = deal(1, 1, random.Random(42))
    assert sorted(card for h in event.hands for card in h) == sorted(DECK)
    assert all(len(h) == 13 and tuple(h) == sorted_cards(h) for h in event.hands)
    assert len(event.salt) == 64 and int(event.salt, 16) >= 0
    text = '{"hands":[' + ",".join("[" + ",".join(f'"{c}"' for c in h) + "]" for h in event.hands) + '],"salt":"' + event.salt + '"}'
    assert event.commitment == hashlib.sha256(text.encode()).hexdigest()


# -- redaction of events per viewer ------------------------------------------------------------


def test_a_deal_shows_each_seat_only_its_own_hand_until_the_round_ends() -> None:
    state = table(*MIXED, round=1)
    event = record([dealt(1, 1, MIXED)], start=6)[0]
    for seat in range(4):
        shown = visible_event(state, event, Viewer(seat=seat)).event
        assert shown.hands[seat] == hand(MIXED[seat])
        assert all(h is None for s, h in enumerate(shown.hands) if s != seat)
        assert shown.salt is None and shown.commitment == event.event.commitment
    shown = visible_event(state, event, SPECTATOR).event
    assert shown.hands == (None, None, None, None) and shown.salt is None


def test_a_pass_is_shown_to_its_seat_then_to_its_receiver_after_the_exchange() -> None:
    state = table(*MIXED, round=1)
    given = PassChosen(0, 1, 1, hand("QS AS 4H"))
    event = record([given], start=7)[0]
    state = do(state, ChoosePass(0, ("QS", "AS", "4H")))
    assert visible_event(state, event, Viewer(seat=0)).event.cards == hand("QS AS 4H")
    for viewer in (Viewer(seat=1), Viewer(seat=2), Viewer(seat=3), SPECTATOR):
        assert visible_event(state, event, viewer).event.cards is None
    for seat, cards in ((1, "2S 3S 7H"), (2, "JC QC KC"), (3, "AH KH QH")):
        state = pass_cards(state, seat, cards)
    assert visible_event(state, event, Viewer(seat=1)).event.cards == hand("QS AS 4H")
    for viewer in (Viewer(seat=2), Viewer(seat=3), SPECTATOR):
        assert visible_event(state, event, viewer).event.cards is None


@pytest.mark.parametrize("ending", ["thirteen_tricks", "accusation", "resignation"])
def test_a_rounds_deal_salt_and_passes_are_public_once_the_round_ends(ending: str) -> None:
    opts = options(revoke="allowed")
    state = table(*MIXED, round=1, opts=opts)
    passes = {0: "QS AS 4H", 1: "2S 3S 7H", 2: "JC QC KC", 3: "AH KH QH"}
    for seat in range(4):
        state = pass_cards(state, seat, passes[seat])
    deal_event = record([dealt(1, 1, MIXED)], start=6)[0]
    pass_event = record([PassChosen(0, 1, 1, hand(passes[0]))], start=7)[0]
    if ending == "thirteen_tricks":
        state = play_out(state)
    elif ending == "accusation":
        state = accuse(state, 2, 3)
    else:
        state = resign(state, 2)
    for viewer in (Viewer(seat=1), Viewer(seat=2), SPECTATOR):
        assert visible_event(state, deal_event, viewer) == deal_event
        assert visible_event(state, pass_event, viewer) == pass_event


def test_a_played_card_is_public() -> None:
    from api.engine.events import CardPlayed

    state = table(*MIXED, round=4)
    event = record([CardPlayed(0, "2C")], start=7)[0]
    assert visible_event(state, event, SPECTATOR) is event

"""Each of 000's beginner tips, in card notation: where the hint gives it, and where it must not."""

from __future__ import annotations

import pytest

from api.engine.hints import LANGUAGES, SENTENCES, TIPS, Reason, pass_reasons, play_reasons

from .positions import (
    HIGH_SPADES_UNGUARDED,
    MOON_STOPPABLE,
    MOON_STOPPABLE_TRICKS,
    SPADES_AND_DIAMONDS,
    hint_at,
    position,
    tips,
    view_of,
)

# -- pass_high_spades ---------------------------------------------------------------


def test_without_low_spades_the_hint_passes_the_ace_and_king_of_spades_and_says_why() -> None:
    hint = hint_at(position(HIGH_SPADES_UNGUARDED, round_number=1), seat=0)
    assert hint.action == "pass"
    assert {"AS", "KS"} <= set(hint.cards)
    reason = next(reason for reason in hint.reasons if reason.tip == "pass_high_spades")
    assert dict(reason.facts)["cards"] == "KS AS"


def test_high_spades_guarded_by_a_low_spade_are_not_passed_for_that_reason() -> None:
    # The same hand with 2S in place of 2H: one low spade guards the ace and the king.
    hands = (
        "AS KS 2C 3C 4C 5C 6D 7D 8D 9H TH 2S 3H",
        "AC 6C 7C 8C 2D 3D 4D 5D 2H 3S 4S 4H 5H",
        *HIGH_SPADES_UNGUARDED[2:],
    )
    view = view_of(position(hands, round_number=1), seat=0)
    assert "pass_high_spades" not in tips(pass_reasons(view, ("AS", "KS", "8D")))


def test_passing_low_spades_or_no_spade_is_not_passing_high_spades() -> None:
    view = view_of(position(HIGH_SPADES_UNGUARDED, round_number=1), seat=1)  # 2S 3S 4S, no AS/KS
    assert "pass_high_spades" not in tips(pass_reasons(view, ("2S", "3S", "4S")))
    unguarded = view_of(position(HIGH_SPADES_UNGUARDED, round_number=1), seat=0)
    assert "pass_high_spades" not in tips(pass_reasons(unguarded, ("2C", "3C", "4C")))  # no high spade passed


# -- make_a_void --------------------------------------------------------------------


def test_passing_a_short_suit_away_makes_a_void() -> None:
    hint = hint_at(position(HIGH_SPADES_UNGUARDED, round_number=1), seat=2)  # QD KD are its diamonds
    assert {"QD", "KD"} <= set(hint.cards)
    reason = next(reason for reason in hint.reasons if reason.tip == "make_a_void")
    assert dict(reason.facts) == {"cards": "QD KD", "suit": "D", "shed": "H QS"}


def test_a_pass_that_keeps_a_card_of_the_suit_makes_no_void() -> None:
    view = view_of(position(HIGH_SPADES_UNGUARDED, round_number=1), seat=2)
    assert "make_a_void" not in tips(pass_reasons(view, ("KD", "KC", "QC")))  # QD stays


def test_void_in_the_led_suit_the_hint_sheds_its_last_spade_and_keeps_the_points_from_the_shooter() -> None:
    state = position(MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H KD")
    hint = hint_at(state)
    assert hint.cards == ("AS",)
    assert tips(hint) == ["stop_the_moon", "make_a_void"]
    assert dict(hint.reasons[1].facts) == {"card": "AS", "suit": "S", "count": "10", "shed": "H"}  # 12 other spades, 2S and QS played


def test_void_in_the_led_suit_a_heart_discarded_on_anothers_trick_is_the_void_paying_off() -> None:
    view = view_of(position(MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H KD"))
    reasons = play_reasons(view, "4H")
    discard = next(reason for reason in reasons if reason.tip == "make_a_void")
    assert discard.sentence == "discard" and dict(discard.facts) == {"card": "4H", "suit": "D"}


def test_a_card_that_leaves_others_of_its_suit_or_a_heart_makes_no_void() -> None:
    view = view_of(position(MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H KD"))
    assert "make_a_void" not in tips(play_reasons(view, "6C"))  # 7C..TC stay in the hand
    seat2 = view_of(position(MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD"))  # 8H 9H: hearts are what a void sheds
    assert [r.sentence for r in play_reasons(seat2, "8H") if r.tip == "make_a_void"] == ["discard"]


# -- duck_under ---------------------------------------------------------------------


def test_the_hint_ducks_under_the_ace_with_the_highest_diamond_that_still_loses() -> None:
    hint = hint_at(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C JD 8D AD"))
    assert hint.cards == ("QD",)
    assert tips(hint) == ["must_follow_suit", "duck_under"]
    assert dict(hint.reasons[1].facts) == {"card": "QD", "suit": "D", "winner": "AD"}


def test_a_lower_card_than_the_highest_loser_is_not_ducking_under() -> None:
    view = view_of(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C JD 8D AD"))
    assert "duck_under" not in tips(play_reasons(view, "9D"))  # QD would still lose to AD


def test_a_card_that_beats_the_trick_is_not_ducking_under() -> None:
    view = view_of(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C JD 8D"))  # seat 3 holds TD KD AD
    assert "duck_under" not in tips(play_reasons(view, "KD"))
    assert "duck_under" in tips(play_reasons(view, "TD"))


# -- stop_the_moon ------------------------------------------------------------------


def test_stop_the_moon_only_when_the_shooter_cannot_take_this_tricks_points() -> None:
    before = view_of(position(MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H KD"))
    assert "stop_the_moon" in tips(play_reasons(before, "4H"))
    assert dict(next(r for r in play_reasons(before, "4H") if r.tip == "stop_the_moon").facts)["seat"] == "1"
    # Seat 3, before anyone stopped it: KD beats the shooter's JD and there is a heart on the trick.
    seat3 = view_of(position(MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H"))
    assert "stop_the_moon" in tips(play_reasons(seat3, "KD"))
    assert "stop_the_moon" not in tips(play_reasons(seat3, "2D"))  # the shooter keeps the trick


def test_no_moon_to_stop_while_the_points_are_shared_or_few() -> None:
    view = view_of(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C JD 8D"))  # nobody has a point yet
    assert "stop_the_moon" not in tips(play_reasons(view, "KD"))


# -- count_spades -------------------------------------------------------------------


def test_following_spades_low_while_the_queen_is_out() -> None:
    hint = hint_at(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C 7S TS AS"))
    assert tips(hint) == ["must_follow_suit", "count_spades"]
    assert dict(hint.reasons[1].facts) == {"card": hint.cards[0], "count": "3", "left": "5"}  # 13 - 3 played - 5 held
    assert hint.cards[0] in ("2S", "3S", "4S", "5S", "6S")


def test_a_spade_above_the_queen_or_a_queen_in_ones_own_hand_is_no_count_spades_reason() -> None:
    view = view_of(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C 7S TS"))  # seat 3: QS KS AS
    assert "count_spades" not in tips(play_reasons(view, "KS"))  # the queen is out, KS may take her
    assert "count_spades" not in tips(play_reasons(view, "QS"))  # its own queen


def test_once_the_queen_is_gone_a_high_spade_can_no_longer_take_her() -> None:
    state = position(SPADES_AND_DIAMONDS, "2C AC 5C 9C 7S TS QS 2S")  # seat 3 wins with QS... and leads
    view = view_of(state)
    assert view.seat == 3
    reason = next(r for r in play_reasons(view, "KS") if r.tip == "count_spades")
    assert reason.sentence == "queen_gone" and dict(reason.facts) == {"card": "KS", "count": "4", "left": "7"}


# -- the rules ----------------------------------------------------------------------


def test_the_first_lead_is_the_two_of_clubs_by_rule() -> None:
    hint = hint_at(position(SPADES_AND_DIAMONDS))
    assert hint.cards == ("2C",)
    assert tips(hint)[0] == "must_lead_two_of_clubs"


def test_void_on_trick_one_the_rule_keeps_points_back() -> None:
    from .positions import MOON_RUN

    hint = hint_at(position(MOON_RUN, "2C AC"))  # seat 2: hearts and spades, no club
    assert hint.cards[0][1] == "S"
    assert tips(hint) == ["no_points_on_first_trick"]


def test_leading_before_hearts_are_broken_names_that_rule() -> None:
    hint = hint_at(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C"))  # seat 1 holds 7H 8H 9H
    assert hint.cards[0][1] != "H"
    assert tips(hint)[0] == "hearts_not_broken"


def test_no_rule_is_named_when_the_rule_left_every_card_allowed() -> None:
    view = view_of(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C JD 8D AD QD"))  # seat 3 leads; hearts unbroken
    assert "must_follow_suit" not in tips(play_reasons(view, view.legal[0]))


# -- the sentences ------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_exists_in_both_languages_and_is_one_sentence(language: str) -> None:
    for (tip, sentence), words in SENTENCES.items():
        text = Reason(tip, sentence, ()).text
        assert language in words
        body = words[language]
        assert body.endswith(".") and body.count(". ") == 0, (tip, sentence)
        assert text  # formatting needs the facts; the template alone is checked here
    assert {tip for tip, _ in SENTENCES} >= set(TIPS)


def test_a_reason_reads_in_portuguese_and_in_english() -> None:
    view = view_of(position(SPADES_AND_DIAMONDS, "2C AC 5C 9C JD 8D AD"))
    duck = next(reason for reason in play_reasons(view, "QD") if reason.tip == "duck_under")
    assert duck.text("en") == "Duck with QD, your highest card in diamonds that still loses to AD on the table."
    assert duck.text("pt-BR") == "Fuja com QD, sua carta de ouros mais alta que ainda perde para AD na mesa."
    assert duck.text("fr") == duck.text("en")

"""The tips under every rule set of RULES.md 9, in card notation: given where they are true of that game, never elsewhere."""

from __future__ import annotations

import pytest

from api.engine.hints import LANGUAGES, moon_reasons, pass_reasons, play_reasons
from api.engine.rule_set import resolve

from .positions import (
    HIGH_SPADES_UNGUARDED,
    MOON_STOPPABLE,
    MOON_STOPPABLE_TRICKS,
    SPADES_AND_DIAMONDS,
    hint_at,
    no_pass,
    position_in,
    tips,
    view_of,
)

# -- stop_the_moon ---------------------------------------------------------------------

# Black Maria, no pass: the dealer is seat 0, so seat 1 leads trick 1 with any card. Seats 2 and 3
# hold no club: on seat 1's AC they discard KS and AS (17 of the game's 43 points), or 2S and QS (13).
BLACK_MARIA_MOON = (
    "2C 3C 4C 5C 6C 7C 8C 2D 3D 4D AD JH QH",
    "AC KC QC JC TC 9C 5D 6D 7D 8D 2H 3H 4H",
    "KS 2S 3S 4S 5S 6S 9D TD JD QD KD AH KH",
    "AS QS JS TS 9S 8S 7S 5H 6H 7H 8H 9H TH",
)


def test_in_black_maria_a_seat_that_took_ks_and_as_holds_every_point_so_far_and_the_ace_of_hearts_stops_it() -> None:
    view = view_of(position_in(no_pass(game="black_maria"), BLACK_MARIA_MOON, "AC KS AS 2C 2H"))
    assert view.seat == 2 and view.taken[1] == 17  # no heart nor the queen: points only in Black Maria's scoring
    stop = next(reason for reason in play_reasons(view, "AH") if reason.tip == "stop_the_moon")
    assert dict(stop.facts) == {"card": "AH", "seat": "1"}


def test_in_black_maria_the_queen_alone_is_13_of_43_points_not_yet_a_moon_to_stop() -> None:
    # The same trick with 2S and QS discarded: every point so far, but a smaller share of the moon than 10 of 26.
    view = view_of(position_in(no_pass(game="black_maria"), BLACK_MARIA_MOON, "AC 2S QS 2C 2H"))
    assert view.taken[1] == 13
    assert "stop_the_moon" not in tips(play_reasons(view, "AH"))


# Spot Hearts, no pass: seat 1 takes trick 1 and the discards QS (25), AH (14) and KH (13) later.
def test_in_spot_hearts_the_threat_is_a_share_of_its_129_points_not_classic_10() -> None:
    rules = no_pass(game="spot_hearts")
    # MOON_STOPPABLE's tricks give seat 1 QS and 5H 6H 7H: 25 + 18 = 43 of 129, under the share of 10 of 26.
    view = view_of(position_in(rules, MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H KD"))
    assert view.taken[1] == 43
    assert "stop_the_moon" not in tips(play_reasons(view, "4H"))
    # Classic counts the same tricks as 16 of 26: a moon to stop.
    classic = view_of(position_in(no_pass(), MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H KD"))
    assert "stop_the_moon" in tips(play_reasons(classic, "4H"))


# Omnibus: seat 1 takes JD itself on trick 3, so its round points are 16 - 10 = 6, yet it holds every point card.
OMNIBUS_MOON = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC 2H 3H 4H AS",
    "AC KC QC JC AD QD 4D TD AH KH QH JH TH",
    "5H 6H 7H 8H 9H 2S 3S 4S 5S 6S 7S 8S 9S",
    "2D 3D JD 5D 6D 7D 8D 9D KD TS JS QS KS",
)
OMNIBUS_TRICKS = "2C AC 2S 2D  KC 5H 3D 3C  QC 6H JD 4C  JC 7H QS 5C  4D 8H KD"


def test_in_omnibus_the_shooter_that_took_the_jack_of_diamonds_still_holds_every_point_card() -> None:
    view = view_of(position_in(no_pass(game="omnibus"), OMNIBUS_MOON, OMNIBUS_TRICKS))
    assert view.seat == 0 and view.taken[1] == 6
    assert "stop_the_moon" in tips(play_reasons(view, "4H"))


def test_with_partnerships_a_partners_moon_is_not_one_to_stop() -> None:
    rules = no_pass(partnerships=True)
    seat3 = view_of(position_in(rules, MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H"))
    assert seat3.seat == 3  # seat 1's partner: its moon gives seats 1 and 3 nothing and 26 to each opponent
    assert "stop_the_moon" not in tips(play_reasons(seat3, "KD"))
    assert "stop_the_moon" in tips(play_reasons(view_of(position_in(no_pass(), MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H")), "KD"))
    # An opponent of the shooter still stops it, even when the trick goes to the shooter's partner.
    seat0 = view_of(position_in(rules, MOON_STOPPABLE, MOON_STOPPABLE_TRICKS + " JD 8H KD"))
    assert "stop_the_moon" in tips(play_reasons(seat0, "4H"))


# -- make_a_void -------------------------------------------------------------------------

# Five players: no 2C nor 2D, ten cards each, 3C opens. Trick 1 is all clubs, trick 2 too (8C led by seat 4).
FIVE_CLUBS = (
    "3C 9C 3D 4D 5D 6D 7D 8D 9D TD",
    "4C TC JD QD KD AD 2H 3H 4H 5H",
    "5C JC 6H 7H 8H 9H TH JH QH KH",
    "6C QC KC AH 2S 3S 4S 5S 6S 7S",
    "7C 8C AC 8S 9S TS JS QS KS AS",
)


def test_with_five_players_the_last_club_makes_a_void_counting_the_clubs_of_a_deck_without_2c() -> None:
    view = view_of(position_in(no_pass(players=5), FIVE_CLUBS, "3C 4C 5C 6C 7C 8C"))
    assert view.seat == 0
    void = next(reason for reason in play_reasons(view, "9C") if reason.tip == "make_a_void")
    assert dict(void.facts)["count"] == "5"  # TC JC QC KC AC: twelve clubs, six played, one in hand


def test_with_five_players_no_void_is_made_when_every_other_club_of_the_deck_is_played() -> None:
    view = view_of(position_in(no_pass(players=5), FIVE_CLUBS, "3C 4C 5C 6C 7C  8C 9C TC JC QC  KC"))
    assert view.seat == 4 and view.legal == ("AC",)
    assert "make_a_void" not in tips(play_reasons(view, "AC"))  # 2C is not in this deck: nobody can lead a club


# Three players: no 2D, seventeen cards each. Seats 1 and 2 hold no club.
THREE = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 4D 5D 6D 7D",
    "8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
    "3D 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS KS AS",
)


def test_with_three_players_a_void_counts_the_diamonds_of_a_deck_without_2d() -> None:
    view = view_of(position_in(no_pass(players=3), THREE, "2C 8D"))
    void = next(reason for reason in play_reasons(view, "3D") if reason.tip == "make_a_void")
    assert dict(void.facts) == {"card": "3D", "suit": "D", "count": "10", "shed": "H QS"}  # 12 diamonds: 8D played, 3D here
    assert void.text("en") == "3D is your last card in diamonds and 10 more are in other hands: without diamonds you can discard hearts and QS on tricks others take."


def test_in_black_maria_a_void_sheds_the_high_spades_too() -> None:
    view = view_of(position_in(resolve({"game": "black_maria"}), HIGH_SPADES_UNGUARDED), seat=2)
    void = next(reason for reason in pass_reasons(view, ("QD", "KD", "KC")) if reason.tip == "make_a_void")
    assert dict(void.facts)["shed"] == "H QS KS AS"
    assert "hearts, QS, KS and AS" in void.text("en") and "copas, QS, KS e AS" in void.text("pt-BR")


def test_with_partnerships_a_point_card_discarded_on_the_partners_trick_is_no_void_paying_off() -> None:
    moves = "2C AC 2S 2D  KC 5H 3D 3C  QC 6H 4D 4C  JC 7H"  # seat 1 leads JC; seat 3, void, holds QS
    alone = view_of(position_in(no_pass(), MOON_STOPPABLE, moves))
    assert alone.seat == 3 and "make_a_void" in tips(play_reasons(alone, "QS"))
    partner = view_of(position_in(no_pass(partnerships=True), MOON_STOPPABLE, moves))
    assert "make_a_void" not in tips(play_reasons(partner, "QS"))


# -- pass_high_spades and count_spades ----------------------------------------------------


def test_in_black_maria_passing_the_high_spades_names_their_own_points() -> None:
    view = view_of(position_in(resolve({"game": "black_maria"}), HIGH_SPADES_UNGUARDED), seat=0)
    reason = next(reason for reason in pass_reasons(view, ("KS", "AS", "8D")) if reason.tip == "pass_high_spades")
    assert reason.sentence == "pass_scoring" and dict(reason.facts) == {"cards": "KS AS", "points": "KS 10, AS 7"}
    classic = view_of(position_in(resolve({}), HIGH_SPADES_UNGUARDED), seat=0)
    assert [r.sentence for r in pass_reasons(classic, ("KS", "AS", "8D")) if r.tip == "pass_high_spades"] == ["pass"]


def test_in_black_maria_a_low_spade_is_below_every_spade_that_scores_still_out() -> None:
    # Seat 1 leads trick 1 with any card: 7S; seat 3 plays AS on seat 2's TS.
    view = view_of(position_in(no_pass(game="black_maria"), SPADES_AND_DIAMONDS, "7S TS AS"))
    assert view.seat == 0
    reason = next(reason for reason in play_reasons(view, "2S") if reason.tip == "count_spades")
    assert reason.sentence == "points_out" and dict(reason.facts)["spades"] == "QS KS"
    assert reason.text("en") == "3 spades are gone and 5 are in other hands, QS and KS among them, but 2S is below those and cannot be the card that takes them."


def test_in_black_maria_a_high_spade_is_never_safe_after_the_queen_it_scores_itself() -> None:
    view = view_of(position_in(no_pass(game="black_maria"), SPADES_AND_DIAMONDS, "7S TS QS 2S"))  # seat 3 took QS
    assert view.seat == 3
    assert "count_spades" not in tips(play_reasons(view, "KS"))
    classic_like = view_of(position_in(no_pass(game="spot_hearts"), SPADES_AND_DIAMONDS, "2C AC 5C 9C 7S TS QS 2S"))
    assert "count_spades" in tips(play_reasons(classic_like, "KS"))  # KS scores nothing in Spot Hearts


# -- the rules -------------------------------------------------------------------------


def test_with_five_players_the_opening_club_is_3c_by_rule() -> None:
    hint = hint_at(position_in(no_pass(players=5), FIVE_CLUBS))
    assert hint.cards == ("3C",) and tips(hint)[0] == "must_lead_two_of_clubs"
    assert hint.reasons[0].text("en") == "The first trick is led with 3C."


def test_a_free_first_lead_with_points_forbidden_names_the_points_rule_not_the_opening_club() -> None:
    rules = no_pass(game="black_maria", first_trick_points="forbidden")
    view = view_of(position_in(rules, SPADES_AND_DIAMONDS))  # seat 1 leads any card but its hearts
    assert view.seat == 1
    assert tips(play_reasons(view, "AC"))[:1] == ["no_points_on_first_trick"]
    assert "must_lead_two_of_clubs" not in tips(play_reasons(view, "AC"))


# -- moon_choice -----------------------------------------------------------------------


def moon_position(scores: tuple[int, ...], **options: object):  # type: ignore[no-untyped-def]
    """The club run of tests/engine: seat 0 takes every point card and must choose how to be paid."""
    from tests.engine.test_rule_set_scenarios import club_run

    state = club_run(no_pass(moon="shooter_chooses", **options), scores=scores)
    assert state.awaiting == (0,)
    return state


def test_a_moon_that_ends_the_match_with_the_shooter_lowest_is_paid_by_the_others() -> None:
    hint = hint_at(moon_position((50, 80, 85, 90)))
    assert hint.action == "moon" and hint.choice == "others_score"
    (reason,) = hint.reasons
    assert (reason.tip, reason.sentence) == ("moon_choice", "wins")
    assert dict(reason.facts)["own"] == "50" and dict(reason.facts)["best"] == "106"
    assert reason.text("en") == "Have each opponent score the moon's 26: the match then ends at the target of 100 with you lowest, 50 against 106."


def test_a_moon_the_others_scoring_would_end_with_the_shooter_behind_is_subtracted() -> None:
    hint = hint_at(moon_position((80, 90, 60, 50)))
    assert hint.choice == "shooter_subtracts"
    (reason,) = hint.reasons
    assert reason.sentence == "goes_on"
    assert dict(reason.facts)["alt_own"] == "80" and dict(reason.facts)["alt_best"] == "76"  # seat 3 would win at 76
    assert reason.text("pt-BR") == (
        "Tire os 26 da lua do seu próprio placar: com cada adversário marcando 26 a partida terminaria"
        " no alvo de 100 com você atrás, 80 contra 76."
    )


def test_a_moon_that_changes_nothing_either_way_takes_the_usual_payment() -> None:
    hint = hint_at(moon_position((0, 0, 0, 0)))
    assert hint.choice == "others_score" and [(r.tip, r.sentence) for r in hint.reasons] == [("moon_choice", "same")]


def test_with_partnerships_the_others_scoring_leaves_the_shooters_side_further_ahead() -> None:
    hint = hint_at(moon_position((0, 0, 0, 0), partnerships=True))
    (reason,) = hint.reasons
    assert hint.choice == "others_score" and reason.sentence == "better"
    facts = dict(reason.facts)
    assert (facts["own"], facts["best"], facts["by"]) == ("0", "52", "26")  # 52 ahead, where subtracting leaves 26
    assert "your side" in reason.text("en") and "sua dupla" in reason.text("pt-BR")


@pytest.mark.parametrize("scores", [(50, 80, 85, 90), (80, 90, 60, 50), (0, 0, 0, 0)])
def test_no_moon_reason_is_given_for_the_choice_that_leaves_the_shooter_worse_off(scores: tuple[int, ...]) -> None:
    view = view_of(moon_position(scores))
    chosen = hint_at(moon_position(scores)).choice
    other = "shooter_subtracts" if chosen == "others_score" else "others_score"
    reasons = moon_reasons(view, other)
    assert reasons == () or reasons[0].sentence == "same"
    for reason in moon_reasons(view, chosen):
        for language in LANGUAGES:
            assert reason.text(language).endswith(".")

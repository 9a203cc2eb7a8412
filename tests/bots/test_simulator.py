"""The bots' bitmask simulator plays and scores by exactly the engine's rules, under every rule set."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.engine import apply, decide
from api.engine.bots import basic, sim, strong
from api.engine.bots.view import bot_view
from api.engine.commands import ChooseMoon, Command, PlayCard
from api.engine.rule_set import CLASSIC, GAMES, RuleSet, resolve
from api.engine.rules import legal_plays, moon_shooter, round_points, trick_points
from api.engine.state import TableState, Trick
from tests.engine.test_rule_set_properties import rule_sets, valid

from .worlds import CONTEXT, T0, dealt_table, random_position, step

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SLOW = [HealthCheck.too_slow, HealthCheck.filter_too_much]


def sim_legal(state: TableState, seat: int) -> int:
    rnd = state.round
    count = len(rnd.trick.cards)
    led = sim.CARD_INDEX[rnd.trick.cards[0][1]] // 13 if count else -1
    hand = sim.mask_of(rnd.hands[seat])
    return sim.legal_mask(hand, count, led, rnd.trick.number, rnd.hearts_broken, sim.rules_for(rnd.rules))


def won_and_taken(state: TableState, rules: sim.SimRules) -> tuple[list[int], list[int]]:
    """The cards each seat took in the completed tricks, and their positive points."""
    won = [0] * rules.players
    for trick in state.round.tricks:
        won[trick.winner] |= sim.mask_of(card for _, card in trick.cards)
    return won, [sim.points_of_mask(mask, rules) for mask in won]


@given(given=rule_sets, seed=SEEDS)
@settings(max_examples=80, deadline=None, suppress_health_check=SLOW)
def test_the_simulator_allows_the_same_cards_and_names_the_same_trick_winners_over_a_random_round(given: dict, seed: int) -> None:
    rules = valid(given)
    rng = random.Random(seed)
    state = random_position(seed, rules.players, rules)  # past any pass
    while state.match is not None and not state.match.history and state.round.moon_choice is None:
        rnd = state.round
        # Every seat, not only the one to play, as if it were its turn.
        for seat in rules.seats:
            assert sim_legal(state, seat) == sim.mask_of(legal_plays(rnd, seat)), (seat, rnd.trick)
        tricks_before = len(rnd.tricks)
        state = step(state, rng)
        if state.match.history:
            last = state.match.history[-1].round.tricks[-1]
        elif len(state.round.tricks) > tricks_before:
            last = state.round.tricks[-1]
        else:
            continue
        assert sim.trick_winner([(s, sim.CARD_INDEX[c]) for s, c in last.cards]) == last.winner


def play_round_with_basic_bots(state: TableState) -> TableState:
    """The engine plays the round to its end: the basic player at every seat, moon choices included."""
    while not state.match.history:
        seat = state.awaiting[0]
        view = bot_view(state, seat)
        command: Command = (
            ChooseMoon(seat, basic.choose_moon(view)) if view.phase == "moon" else PlayCard(seat, basic.choose_play(view, random.Random(0)))
        )
        state = apply(state, decide(state, command, CONTEXT), T0)
    return state


@given(given=rule_sets, seed=SEEDS, moves=st.integers(min_value=0, max_value=90))
@settings(max_examples=80, deadline=None, suppress_health_check=SLOW)
def test_a_simulated_playout_takes_and_scores_what_the_engine_does_with_basic_bots_at_every_seat(given: dict, seed: int, moves: int) -> None:
    rules = valid(given)
    state = random_position(seed, rules.players + moves, rules)
    rnd = state.round
    if rnd is None or rnd.is_passing:
        return
    sim_rules = sim.rules_for(rules)
    hands = [sim.mask_of(hand) for hand in rnd.hands]
    played = sim.mask_of(card for trick in (*rnd.tricks, rnd.trick) for _, card in trick.cards)
    on_table = [(s, sim.CARD_INDEX[c]) for s, c in rnd.trick.cards]
    won, taken = won_and_taken(state, sim_rules)
    sim.playout(sim_rules, hands, rnd.trick.leader, on_table, rnd.trick.number, rnd.hearts_broken, taken, won, played)
    scores = sim.round_scores(sim_rules, taken, won, strong.moon_choices(rules, state.match.scores))

    record = play_round_with_basic_bots(state).match.history[-1]
    if sim_rules.keeps_won:
        assert won == [sim.mask_of(c for t in record.round.tricks if t.winner == seat for _, c in t.cards) for seat in rules.seats]
    assert taken == [sim.points_of_mask(sim.mask_of(c for t in record.round.tricks if t.winner == seat for _, c in t.cards), sim_rules) for seat in rules.seats]
    assert scores == list(record.points)


@st.composite
def finished_rounds(draw: st.DrawFn) -> tuple[RuleSet, list[Trick]]:
    """A rule set and a round's tricks with any winners, a moon (one seat taking every point card) half the time."""
    rules = valid(draw(rule_sets))
    deck = list(draw(st.permutations(rules.deck)))
    size = rules.players
    shooter = draw(st.one_of(st.none(), st.sampled_from(rules.seats)))
    moon_cards = rules.scoring.moon_cards
    tricks = []
    for number in range(rules.hand_size):
        cards = deck[number * size : number * size + size]
        winner = draw(st.sampled_from(rules.seats))
        if shooter is not None and moon_cards & set(cards):
            winner = shooter
        tricks.append(Trick(number + 1, 0, tuple((seat, card) for seat, card in enumerate(cards)), winner))
    return rules, tricks


@given(round_=finished_rounds(), match_scores=st.lists(st.integers(min_value=-40, max_value=140), min_size=5, max_size=5))
@settings(max_examples=200, deadline=None, suppress_health_check=SLOW)
def test_the_simulators_round_scores_are_the_engines_round_points_moons_included(round_: tuple[RuleSet, list[Trick]], match_scores: list[int]) -> None:
    rules, tricks = round_
    scores = tuple(match_scores[: rules.players])
    taken, tricks_taken = [0] * rules.players, [0] * rules.players
    for trick in tricks:
        taken[trick.winner] += trick_points(trick, rules)
        tricks_taken[trick.winner] += 1
    rnd = replace(dealt_table(0, 1, rules=rules).round, tricks=tuple(tricks), taken=tuple(taken), tricks_taken=tuple(tricks_taken))
    shooter = moon_shooter(rnd)
    choosing = shooter is not None and rules.moon == "shooter_chooses"
    points, _ = round_points(rnd, basic.moon_choice(rules, scores, shooter) if choosing else None)

    sim_rules = sim.rules_for(rules)
    won = [sim.mask_of(card for trick in tricks if trick.winner == seat for _, card in trick.cards) for seat in rules.seats]
    positive = [sim.points_of_mask(mask, sim_rules) for mask in won]
    assert sim.round_scores(sim_rules, positive, won, strong.moon_choices(rules, scores)) == list(points)


def test_the_simulator_reads_each_games_deck_opening_card_and_points_from_the_rule_set() -> None:
    five = sim.rules_for(resolve({"players": 5}))
    assert (five.players, five.tricks, five.opening) == (5, 10, sim.CARD_BIT["3C"])
    assert not five.deck & (sim.CARD_BIT["2C"] | sim.CARD_BIT["2D"])
    three = sim.rules_for(resolve({"players": 3}))
    assert (three.tricks, three.deck.bit_count()) == (17, 51)
    maria = sim.rules_for(resolve({"game": "black_maria"}))
    assert maria.opening == 0 and not maria.first_trick_barred and not maria.hearts_wait
    assert [maria.points[sim.CARD_INDEX[card]] for card in ("QS", "KS", "AS", "2H", "JD")] == [13, 10, 7, 1, 0]
    spots = sim.rules_for(resolve({"game": "spot_hearts"}))
    assert spots.moon_total == sum(GAMES["spot_hearts"].scoring.points.values()) and spots.moon_value == 140
    omnibus = sim.rules_for(resolve({"game": "omnibus"}))
    assert omnibus.bonus == ((sim.CARD_BIT["JD"], -10),)
    assert sim.rules_for(CLASSIC) is sim.rules_for(resolve({}))  # built once per rule set

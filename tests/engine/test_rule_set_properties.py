"""Properties of random matches of every game, player count and option.

hypothesis draws a rule set (any game, 3/4/5 players, any options section 9
allows) and a seed; the seats are humans choosing uniformly among their legal
moves (and moon choices) or bots, and the match is played to its end through
`decide` and `play_on`. Checked: each round's points sum as the rule set
says, the stream replays to the live state, and no viewer's view or event
list shows a card it may not know.
"""

from __future__ import annotations

import random
from datetime import timedelta

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from api.engine import Context, decide, legal_moves, replay, table_view
from api.engine.bots import bot_command
from api.engine.commands import ChooseMoon, ChoosePass, Command, PlayCard
from api.engine.decide import Decision, play_on
from api.engine.events import BotSeated, MatchStarted, PassChosen, PlayerSeated, Recorded, RoundDealt, TableCreated
from api.engine.redaction import visible_event
from api.engine.rule_set import GAME_NAMES, MOON_CHOICES, InvalidRuleSet, RuleSet, resolve
from api.engine.rules import receiver_of
from api.engine.state import RoundRecord, TableState
from api.engine.viewers import SPECTATOR, Viewer

from .scenario import T0, card_strings

rule_sets = st.fixed_dictionaries(
    {
        "game": st.sampled_from(GAME_NAMES),
        "players": st.sampled_from((3, 4, 5)),
        "target_score": st.sampled_from((25, 60)),
    },
    optional={
        "pass_cycle": st.sampled_from(("classic", "left", "right", "across", "none")),
        "first_trick_points": st.sampled_from(("forbidden", "allowed")),
        "hearts_lead": st.sampled_from(("after_broken", "any_time")),
        "queen_breaks_hearts": st.booleans(),
        "moon": st.sampled_from(("others_score", "shooter_subtracts", "shooter_chooses")),
        "jack_of_diamonds": st.sampled_from((0, -10)),
        "clean_hand_bonus": st.sampled_from((0, -5)),
        "partnerships": st.booleans(),
        "tie": st.sampled_from(("share", "play_on")),
    },
)


def valid(given: dict) -> RuleSet:
    try:
        return resolve(given)
    except InvalidRuleSet:
        assume(False)
        raise


def expected_sum(record: RoundRecord, rules: RuleSet) -> int:
    """What a round's points add up to, by the rule set's scoring."""
    scoring = rules.scoring
    rnd = record.round
    if record.accusation is not None:
        return scoring.revoke_penalty
    clean = rules.clean_hand_bonus * sum(1 for seat in rules.seats if rnd.tricks_taken[seat] == 0)
    jack = scoring.points.get("JD", 0)
    if record.moon is None:
        return scoring.moon_total + jack + clean
    others = sum(1 for seat in rules.seats if seat not in rules.team_of(record.moon))
    paid_by_others = record.points[record.moon] - (jack if _took_jack(rnd, record.moon) else 0) - (rules.clean_hand_bonus if rnd.tricks_taken[record.moon] == 0 else 0) == 0
    moon = scoring.moon_value * others if paid_by_others else -scoring.moon_value
    return moon + jack + clean


def _took_jack(rnd, seat: int) -> bool:
    return any(trick.winner == seat and any(card == "JD" for _, card in trick.cards) for trick in rnd.tricks)


def known_cards(state: TableState, seat: int | None) -> set[str]:
    """The cards of the running round `seat` may know: its own hand and pass, what it received, the plays."""
    rnd = state.round
    if rnd is None:
        return set()
    known = {card for trick in (*rnd.tricks, rnd.trick) for _, card in trick.cards}
    if seat is not None:
        known |= set(rnd.dealt[seat]) | set(rnd.passes[seat] or ())
        if rnd.exchanged:
            for giver, cards in enumerate(rnd.passes):
                if receiver_of(giver, rnd.direction, rnd.rules.players) == seat:
                    known |= set(cards or ())
    return known


def check_secrecy(state: TableState, stream: list[Recorded]) -> None:
    match = state.match
    if match is None or match.result is not None or state.round is None:
        return
    current = (match.number, state.round.number)
    for viewer in (*(Viewer(seat) for seat in state.options.seats), SPECTATOR):
        allowed = known_cards(state, viewer.seat)
        view = table_view(state, viewer)
        if view["last_trick"] is not None and view["last_trick"].get("round") != current[1]:
            view = {**view, "last_trick": None}  # the previous round's: public
        assert not card_strings(view) - allowed, viewer
        for recorded in stream:
            event = recorded.event
            if isinstance(event, (RoundDealt, PassChosen)) and (event.match, event.round) == current:
                assert not card_strings(visible_event(state, recorded, viewer).event) - allowed, (viewer, event.type)


def random_human(rng: random.Random):
    def choose(state: TableState, seat: int) -> Command | None:
        if state.seats[seat].is_bot:
            return bot_command(state, seat, rng)
        rnd = state.round
        if rnd is not None and rnd.moon_choice == seat:
            return ChooseMoon(seat, rng.choice(MOON_CHOICES))
        moves = legal_moves(state, seat)
        assert moves, f"seat {seat} is awaited with no move"
        if rnd is not None and rnd.is_passing:
            return ChoosePass(seat, tuple(rng.sample(moves, 3)))
        return PlayCard(seat, rng.choice(moves))

    return choose


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(given=rule_sets, seed=st.integers(0, 2**32 - 1), bots=st.sets(st.integers(1, 4)))
def test_random_matches_of_every_rule_set_score_replay_and_keep_secrets(given: dict, seed: int, bots: set[int]) -> None:
    rules = valid(given)
    rng = random.Random(seed)
    events = [TableCreated(0, "Ana", rules)]
    events += [BotSeated(seat, f"Bot {seat}", "basic") if seat in bots else PlayerSeated(seat, f"P{seat}") for seat in rules.seats[1:]]
    stream = [Recorded(seq, T0, event) for seq, event in enumerate(events + [MatchStarted(1)], start=1)]
    state = replay(stream)
    stream.append(Recorded(state.version + 1, T0, decide_deal(state, rng)))
    state = replay(stream)
    choose = random_human(rng)
    at = T0
    steps = 0
    while state.is_running:
        steps += 1
        assert steps < 3000, "the match does not end"
        at += timedelta(seconds=1)
        seat = rng.choice(state.awaiting)
        command = choose(state, seat)
        assert command is not None
        context = Context(now=at, rng=rng)
        rounds = len(state.match.history)  # type: ignore[union-attr]
        decision = play_on(decide(state, command, context), context, lambda s, seat: bot_command(s, seat, rng) if s.seats[seat].is_bot else None)
        stream.extend(Recorded(state.version + i, at, event) for i, event in enumerate(decision, start=1))
        state = decision.state
        history = state.match.history  # type: ignore[union-attr]
        for record in history[rounds:]:
            assert sum(record.points) == expected_sum(record, rules), record.points
            if record.accusation is None:
                assert sum(record.round.tricks_taken) == rules.hand_size
        if len(history) > rounds or steps % 11 == 0:
            check_secrecy(state, stream)
    assert replay(stream) == state
    result = state.match.result  # type: ignore[union-attr]
    assert result is not None and len(result.standings) == rules.players
    assert (result.teams is not None) == rules.partnerships


def decide_deal(state: TableState, rng: random.Random) -> RoundDealt:
    from api.engine import deal

    return deal(1, 1, rng, state.options)


def test_a_decision_is_the_state_its_events_lead_to() -> None:
    rng = random.Random(3)
    rules = resolve({"players": 5})
    stream = [Recorded(1, T0, TableCreated(0, "Ana", rules))] + [Recorded(seat + 1, T0, BotSeated(seat, f"Bot {seat}", "basic")) for seat in rules.seats[1:]]
    state = replay(stream)
    assert isinstance(play_on(Decision((), state), Context(now=T0, rng=rng), lambda s, seat: None), Decision)

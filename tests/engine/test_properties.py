"""Properties of random complete matches.

Each match is driven by a seeded `random.Random` that picks uniformly among
the moves the engine offers; hypothesis draws the seed and the table options.
On revoke-allowed tables the human seats sometimes revoke (they pick among
`playable`) and sometimes accuse.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.engine import Context, decide, evolve, legal_moves, playable, replay, table_view
from api.engine.cards import DECK, rank_value
from api.engine.commands import Accuse, ChoosePass, Command, PlayCard
from api.engine.events import Event, PassChosen, Recorded, RoundDealt
from api.engine.redaction import visible_event
from api.engine.state import Options, Revoke, TableState, Tie
from api.engine.viewers import SPECTATOR, Viewer

from .scenario import T0, card_strings, known_cards, seated

VIEWERS = (Viewer(seat=0), Viewer(seat=1), Viewer(seat=2), Viewer(seat=3), SPECTATOR)
PROPERTY_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@dataclass
class Run:
    state: TableState
    stream: list[Recorded] = field(default_factory=list)
    seen_rounds: int = 0

    def add(self, events: tuple[Event, ...] | list[Event], at) -> None:
        for event in events:
            recorded = Recorded(self.state.version + 1, at, event)
            self.stream.append(recorded)
            self.state = evolve(self.state, recorded)


def start(opts: Options, bots: tuple[int, ...], rng: random.Random) -> Run:
    run = Run(TableState())
    run.add(seated(opts, bots=bots), T0)
    from api.engine import deal

    run.add((deal(1, 1, rng),), T0)
    return run


def next_command(state: TableState, rng: random.Random, accuse_rate: float) -> Command:
    seat = rng.choice(state.awaiting)
    moves = legal_moves(state, seat)
    assert moves, f"seat {seat} is awaited but has no legal move"
    if state.round.is_passing:
        return ChoosePass(seat, tuple(rng.sample(moves, 3)))
    if state.options.revoke is Revoke.ALLOWED:
        humans = [s for s in range(4) if state.seats[s].is_human]
        if humans and rng.random() < accuse_rate:
            accuser = rng.choice(humans)
            return Accuse(accuser, rng.choice([s for s in range(4) if s != accuser]))
        moves = playable(state, seat)
    return PlayCard(seat, rng.choice(moves))


def check_invariants(state: TableState) -> None:
    rnd = state.round
    for seat in range(4):
        assert set(legal_moves(state, seat)) <= set(playable(state, seat))
    for seat in state.awaiting:
        assert legal_moves(state, seat), f"seat {seat} is awaited with no legal move"
    if rnd is not None:
        assert sorted(card for hand in rnd.dealt for card in hand) == sorted(DECK)
        assert len(set().union(*rnd.dealt)) == 52


def check_round_record(state: TableState) -> None:
    match = state.match
    record = match.history[-1]
    points = record.points
    if record.accusation is not None:
        assert sorted(points) == [0, 0, 0, 26] and points[record.accusation.penalized_seat] == 26
        assert record.accusation.revoke_found == (record.accusation.accused in record.round.revokers)
    elif record.moon is not None:
        assert points == tuple(0 if seat == record.moon else 26 for seat in range(4))
        assert record.round.taken[record.moon] == 26
    else:
        assert sum(points) == 26 and points == record.round.taken
    if record.accusation is None:
        tricks = record.round.tricks
        assert len(tricks) == 13 and sum(record.round.tricks_taken) == 13
        assert sorted(card for trick in tricks for _, card in trick.cards) == sorted(DECK)
    for trick in record.round.tricks:
        led = trick.cards[0][1][1]
        best = max((card for _, card in trick.cards if card[1] == led), key=rank_value)
        assert trick.winner == next(seat for seat, card in trick.cards if card == best)
        assert trick.cards[0][0] == trick.leader
    # The match scores are the sum of the rounds' points.
    assert record.scores == tuple(sum(r.points[seat] for r in match.history) for seat in range(4))
    assert match.scores == record.scores


def check_secrecy(state: TableState, stream: list[Recorded], *, events: bool) -> None:
    match = state.match
    if match is None or match.result is not None:
        return  # after a match is finished every card of it is public
    current = (match.number, match.round.number if match.round is not None else None)
    for viewer in VIEWERS:
        allowed = known_cards(state, viewer.seat)
        view = table_view(state, viewer)
        last = view["last_trick"]
        if last is not None and last.get("round") != current[1]:
            view = {**view, "last_trick": None}  # the previous round's last trick: that round has ended
        leaked = card_strings(view) - allowed
        assert not leaked, f"{viewer} sees {leaked} in its view"
        if not events:
            continue
        for recorded in stream:
            event = recorded.event
            if isinstance(event, (RoundDealt, PassChosen)) and (event.match, event.round) == current:
                leaked = card_strings(visible_event(state, recorded, viewer).event) - allowed
                assert not leaked, f"{viewer} sees {leaked} in {event.type}"


def play_match(seed: int, opts: Options, bots: tuple[int, ...], accuse_rate: float = 0.01) -> Run:
    rng = random.Random(seed)
    run = start(opts, bots, rng)
    at = T0
    steps = 0
    while run.state.is_running:
        steps += 1
        assert steps < 5000, "the match does not end"
        at += timedelta(seconds=rng.randint(1, 600))
        command = next_command(run.state, rng, accuse_rate)
        events = decide(run.state, command, Context(now=at, rng=rng))
        rounds_before = len(run.state.match.history)
        run.add(events, at)
        check_invariants(run.state)
        if len(run.state.match.history) > rounds_before:
            check_round_record(run.state)
            check_secrecy(run.state, run.stream, events=True)
        elif steps % 7 == 0:
            check_secrecy(run.state, run.stream, events=steps % 21 == 0)
    return run


table_options = st.builds(
    Options,
    target_score=st.sampled_from([50, 100]),
    revoke=st.sampled_from(list(Revoke)),
    tie=st.sampled_from(list(Tie)),
)
bot_seats = st.sets(st.sampled_from([1, 2, 3]), max_size=3).map(lambda s: tuple(sorted(s)))


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32 - 1), opts=table_options, bots=bot_seats)
def test_random_matches_keep_every_rule_and_invariant(seed: int, opts: Options, bots: tuple[int, ...]) -> None:
    run = play_match(seed, opts, bots)
    state = run.state
    result = state.match.result
    assert result is not None and result.reason.value == "target"
    assert max(state.match.scores) >= opts.target_score
    low = min(state.match.scores)
    assert result.winners == tuple(seat for seat in range(4) if state.match.scores[seat] == low)
    if opts.tie is Tie.PLAY_ON:
        assert len(result.winners) == 1
    ranks = [s.rank for s in result.standings]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    # The stream alone rebuilds the same state.
    assert replay(run.stream) == state


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), target=st.sampled_from([50, 100]), rate=st.sampled_from([0.02, 0.1]))
def test_random_revokes_and_accusations_keep_scores_consistent(seed: int, target: int, rate: float) -> None:
    opts = Options(target_score=target, revoke=Revoke.ALLOWED)
    run = play_match(seed, opts, (), accuse_rate=rate)
    history = run.state.match.history
    assert run.state.match.scores == tuple(sum(r.points[seat] for r in history) for seat in range(4))
    assert replay(run.stream) == run.state


def test_a_100_point_match_replays_to_the_state_built_step_by_step() -> None:
    run = play_match(2024, Options(), (1, 2), accuse_rate=0)
    assert len(run.stream) > 300
    assert replay(run.stream) == run.state
    # Any prefix of the stream is a state the table was in.
    middle = len(run.stream) // 2
    assert replay(run.stream[middle:], replay(run.stream[:middle])) == run.state


def test_decide_skips_follow_ups_only_when_none_can_arise() -> None:
    """The fast path of `decide` (no re-apply for most moves) never drops a follow-up."""
    from api.engine.decide import _HANDLERS, _may_need_follow_up, follow_ups

    rng = random.Random(99)
    for opts in (Options(target_score=50), Options(target_score=50, revoke=Revoke.ALLOWED)):
        run = start(opts, (), rng)
        skipped = 0
        while run.state.is_running:
            command = next_command(run.state, rng, 0.02)
            ctx = Context(now=T0, rng=random.Random(1))
            events = _HANDLERS[type(command)](run.state, command, ctx)
            if not _may_need_follow_up(run.state, events):
                skipped += 1
                assert follow_ups(run.state, events, ctx) == ()
            run.add(decide(run.state, command, Context(now=T0, rng=rng)), T0)
        assert skipped > 100

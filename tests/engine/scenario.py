"""Build tables in card notation, so scenario tests read like the rulebook.

    state = table(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",   # seat 0
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",   # seat 1
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",   # seat 2
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",   # seat 3
        round=4,                                    # no pass: tricks start at once
    )
    state = play(state, 0, "2C")

States are built by replaying hand-written events through `replay`, exactly as
the service rebuilds a table; moves go through `decide` + `apply` with a fixed
`Context`, so every refusal is the engine's own.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from api.engine import Context, apply, decide, legal_moves, playable, replay
from api.engine.cards import DECK, sorted_cards
from api.engine.commands import Accuse, ChoosePass, Command, PlayCard, Rematch, Resign
from api.engine.commitment import deal_commitment
from api.engine.events import (
    BotSeated,
    Event,
    MatchStarted,
    PlayerSeated,
    Recorded,
    RoundDealt,
    TableCreated,
)
from api.engine.state import Options, Revoke, TableState, Tie, evolved

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
SALT = "ab" * 32
NOW = Context(now=T0, rng=random.Random(0))


def cards(text: str) -> tuple[str, ...]:
    """'2C 3C QS' -> ('2C', '3C', 'QS')."""
    return tuple(text.split())


def hand(text: str) -> tuple[str, ...]:
    return sorted_cards(cards(text))


def context(now: datetime = T0, seed: int = 0) -> Context:
    return Context(now=now, rng=random.Random(seed))


def options(*, target: int = 100, revoke: str = "prevented", tie: str = "share") -> Options:
    return Options(target_score=target, revoke=Revoke(revoke), tie=Tie(tie))


def dealt(match: int, round_number: int, hands: Sequence[str], salt: str = SALT) -> RoundDealt:
    parsed = tuple(hand(text) for text in hands)
    assert len(parsed) == 4 and all(len(h) == 13 for h in parsed), "four hands of 13"
    assert sorted(card for h in parsed for card in h) == sorted(DECK), "the four hands are the deck"
    return RoundDealt(match, round_number, deal_commitment(parsed, salt), parsed, salt)


def record(events: Iterable[Event], *, start: int = 1, at: datetime = T0) -> list[Recorded]:
    return [Recorded(seq, at, event) for seq, event in enumerate(events, start=start)]


def seated(opts: Options | None = None, *, bots: Sequence[int] = ()) -> list[Event]:
    """The events of a table whose four seats are taken (seats in `bots` by bots)."""
    events: list[Event] = [TableCreated(0, "Ana", opts or Options())]
    for seat, name in ((1, "Bia"), (2, "Caio"), (3, "Duda")):
        events.append(BotSeated(seat, f"Bot {seat}", "basic") if seat in bots else PlayerSeated(seat, name))
    events.append(MatchStarted(1))
    return events


def table(
    *hands: str,
    round: int = 1,  # noqa: A002 - the rulebook's word
    opts: Options | None = None,
    bots: Sequence[int] = (),
    at: datetime = T0,
) -> TableState:
    """A table at the deal of match 1, round `round`, with these four hands.

    Rounds before `round` are played first with seeded random legal moves, so
    the history (and with it the pass cycle) is the real one.
    """
    events = seated(opts, bots=bots)
    if round > 1:
        events += played_rounds(events, round - 1, at=at)
    events.append(dealt(1, round, hands))
    return replay(record(events, at=at))


def played_rounds(events: list[Event], count: int, *, at: datetime = T0, seed: int = 7) -> list[Event]:
    """The events of `count` rounds played after `events` with random legal moves."""
    from api.engine import deal

    rng = random.Random(seed)
    ctx = Context(now=at, rng=rng)
    added: list[Event] = [deal(1, 1, rng)]
    state = replay(record(events + added, at=at))
    while True:
        seat = state.awaiting[0]
        moves = legal_moves(state, seat)
        if state.status.value == "passing":
            command: Command = ChoosePass(seat, tuple(rng.sample(moves, 3)))
        else:
            command = PlayCard(seat, rng.choice(moves))
        for event in decide(state, command, ctx):
            if isinstance(event, RoundDealt) and event.round > count:
                return added
            added.append(event)
            state = apply(state, (event,), at)
        assert state.is_running, "the prior rounds ended the match"


def with_scores(state: TableState, scores: Sequence[int]) -> TableState:
    """The same table with these match scores, as if earlier rounds had given them.

    A shortcut for end-of-match scenarios: the history stays empty.
    """
    match = state.match
    assert match is not None
    return evolved(state, matches=state.matches[:-1] + (evolved(match, scores=tuple(scores)),))


def do(state: TableState, command: Command, ctx: Context = NOW) -> TableState:
    """Decide and apply a command (raises the engine's RuleViolation if refused)."""
    return apply(state, decide(state, command, ctx), ctx.now)


def play(state: TableState, seat: int, card: str, ctx: Context = NOW) -> TableState:
    return do(state, PlayCard(seat, card), ctx)


def plays(state: TableState, text: str, ctx: Context = NOW) -> TableState:
    """Play cards in turn order: 'seat0card seat1card ...' starting with whoever is on turn."""
    for card in cards(text):
        turn = state.turn
        assert turn is not None, f"nobody is on turn to play {card}"
        state = play(state, turn, card, ctx)
    return state


def pass_cards(state: TableState, seat: int, text: str, ctx: Context = NOW) -> TableState:
    return do(state, ChoosePass(seat, cards(text)), ctx)


def accuse(state: TableState, seat: int, accused: int, ctx: Context = NOW) -> TableState:
    return do(state, Accuse(seat, accused), ctx)


def resign(state: TableState, seat: int, ctx: Context = NOW) -> TableState:
    return do(state, Resign(seat), ctx)


def rematch(state: TableState, seat: int, ctx: Context = NOW) -> TableState:
    return do(state, Rematch(seat), ctx)


def hand_of(state: TableState, seat: int) -> tuple[str, ...]:
    rnd = state.round
    assert rnd is not None
    return sorted_cards(rnd.hands[seat])


def play_out(state: TableState, rng: random.Random | None = None) -> TableState:
    """Finish the current round with random legal moves (the lowest card when no rng)."""
    match_number, round_number = state.match.number, state.round.number  # type: ignore[union-attr]
    while state.round is not None and (state.match.number, state.round.number) == (match_number, round_number):  # type: ignore[union-attr]
        state = random_step(state, rng)
    return state


def random_step(state: TableState, rng: random.Random | None = None, *, revoke: bool = False) -> TableState:
    """One move by an awaited seat: a uniformly random legal move (or the first, without rng)."""
    seat = state.awaiting[0] if rng is None else rng.choice(state.awaiting)
    rnd = state.round
    assert rnd is not None
    moves = playable(state, seat) if revoke else legal_moves(state, seat)
    assert moves, f"seat {seat} is awaited but has no move"
    if rnd.is_passing:
        chosen = moves[:3] if rng is None else tuple(rng.sample(moves, 3))
        return do(state, ChoosePass(seat, tuple(chosen)), context(seed=rng.random() if rng else 0))
    card = moves[0] if rng is None else rng.choice(moves)
    return play(state, seat, card, context(seed=rng.random() if rng else 0))


# -- what a viewer may know -----------------------------------------------------------

_CARD = __import__("re").compile(r"^[2-9TJQKA][CDHS]$")


def card_strings(value: object) -> set[str]:
    """Every card-shaped string anywhere in a view, an event or a list of them."""
    import dataclasses

    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _CARD.match(item):
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
    return found


def known_cards(state: TableState, seat: int | None) -> set[str]:
    """The cards of the current round that `seat` (None: a spectator) may know now.

    Its own dealt hand and pass, what it received once the cards have moved,
    and every card played face up. (Ended rounds are public: not covered here.)
    """
    from api.engine.rules import giver_to

    match = state.match
    rnd = match.round if match is not None else None
    if rnd is None:
        return set()
    known = {card for trick in (*rnd.tricks, rnd.trick) for _, card in trick.cards}
    if seat is not None:
        known |= set(rnd.dealt[seat]) | set(rnd.passes[seat] or ())
        if rnd.exchanged and rnd.direction.value != "none":
            known |= set(rnd.passes[giver_to(seat, rnd.direction)] or ())
    return known

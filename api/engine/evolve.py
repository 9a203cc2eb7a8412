"""evolve(state, recorded) applies one event; replay folds a stream.

Events are facts: `evolve` trusts them and never raises. Every derived
number (scores, points, whose turn) is recomputed here, never read from a
stored summary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from .cards import HEARTS, QUEEN_OF_SPADES, sorted_cards
from .events import (
    BotSeated,
    CardPlayed,
    Event,
    MatchAbandoned,
    MatchStarted,
    MoonChosen,
    PassChosen,
    PlayerSeated,
    PreferencesChanged,
    Recorded,
    Resigned,
    RevokeAccused,
    RoundDealt,
    SpectatorJoined,
    TableCreated,
)
from .results import forfeit_result, target_result
from .rules import (
    accusation_points,
    first_leader,
    has_suit,
    moon_shooter,
    needs_moon_choice,
    pass_direction,
    receiver_of,
    round_points,
    trick_points,
    trick_winner,
)
from .state import (
    Accusation,
    Direction,
    EndReason,
    Match,
    Round,
    RoundRecord,
    Seat,
    SeatKind,
    Spectator,
    TableState,
    Trick,
    evolved,
)


def evolve(state: TableState, recorded: Recorded) -> TableState:
    """The state after one recorded event."""
    event = recorded.event
    apply = _APPLY.get(type(event))
    changed = apply(state, event, recorded.at) if apply is not None else state
    if changed is state:
        return evolved(state, version=recorded.seq, updated_at=recorded.at)
    # `changed` is a fresh copy that nobody else holds yet: number it in place
    # rather than copying it once more (replay does this for every event).
    fields = changed.__dict__
    fields["version"] = recorded.seq
    fields["updated_at"] = recorded.at
    return changed


def replay(stream: Iterable[Recorded], state: TableState | None = None) -> TableState:
    """Fold a stream of recorded events into the state they describe."""
    state = TableState() if state is None else state
    for recorded in stream:
        state = evolve(state, recorded)
    return state


# -- the table ---------------------------------------------------------------


def _table_created(state: TableState, event: TableCreated, at: datetime) -> TableState:
    # One seat per player of the rule set; the creator takes seat 0.
    seats = (Seat(SeatKind.HUMAN, event.name),) + (Seat(),) * (event.options.players - 1)
    return evolved(state, created=True, options=event.options, seats=seats)


def _player_seated(state: TableState, event: PlayerSeated, at: datetime) -> TableState:
    return _with_seat(state, event.seat, Seat(SeatKind.HUMAN, event.name))


def _bot_seated(state: TableState, event: BotSeated, at: datetime) -> TableState:
    return _with_seat(state, event.seat, Seat(SeatKind.BOT, event.name, bot_level=event.level))


def _spectator_joined(state: TableState, event: SpectatorJoined, at: datetime) -> TableState:
    return evolved(state, spectators=state.spectators + (Spectator(event.spectator, event.name),))


def _preferences_changed(state: TableState, event: PreferencesChanged, at: datetime) -> TableState:
    changes = {key: value for key, value in (("name", event.name), ("deck_design", event.deck_design)) if value is not None}
    if event.seat is not None and 0 <= event.seat < len(state.seats):
        return _with_seat(state, event.seat, evolved(state.seats[event.seat], **changes))
    spectators = tuple(
        evolved(spectator, **changes) if spectator.number == event.spectator else spectator
        for spectator in state.spectators
    )
    return evolved(state, spectators=spectators)


def _with_seat(state: TableState, seat: int, value: Seat) -> TableState:
    seats = list(state.seats)
    seats[seat] = value
    return evolved(state, seats=tuple(seats))


# -- the match ---------------------------------------------------------------


def _match_started(state: TableState, event: MatchStarted, at: datetime) -> TableState:
    return evolved(state, matches=state.matches + (Match(event.match, scores=state.options.no_points),))


def _resigned(state: TableState, event: Resigned, at: datetime) -> TableState:
    # The resigning seat loses; the lowest of the other three wins.
    return _finish(state, (event.seat,), EndReason.RESIGN)


def _match_abandoned(state: TableState, event: MatchAbandoned, at: datetime) -> TableState:
    # The seats being waited on lose; the lowest of the present seats wins.
    return _finish(state, event.awaited, EndReason.ABANDON)


def _finish(state: TableState, losers: tuple[int, ...], reason: EndReason) -> TableState:
    match = state.match
    if match is None or match.result is not None:
        return state
    result = forfeit_result(match.scores, losers, reason, state.options)
    return _with_match(state, evolved(match, result=result))


def _with_match(state: TableState, match: Match) -> TableState:
    return evolved(state, matches=state.matches[:-1] + (match,))


# -- the round ---------------------------------------------------------------


def _round_dealt(state: TableState, event: RoundDealt, at: datetime) -> TableState:
    match = state.match
    if match is None:
        return state
    rules = state.options
    dealt = tuple(tuple(hand or ()) for hand in event.hands)
    hands = tuple(frozenset(hand) for hand in dealt)
    direction = pass_direction(event.round, rules)
    rnd = Round(
        number=event.round,
        direction=direction,
        dealt=dealt,
        salt=event.salt or "",
        commitment=event.commitment,
        hands=hands,
        passes=(None,) * rules.players,
        # A round without a pass (round 4 of the classic cycle): the tricks start at once.
        exchanged=direction is Direction.NONE,
        trick=Trick(1, first_leader(hands, event.round, rules)),
        tricks=(),
        taken=rules.no_points,
        tricks_taken=rules.no_points,
        hearts_broken=False,
        revokes=(),
        awaiting_since=at,
        rules=rules,
    )
    return _with_match(state, evolved(match, round=rnd))


def _pass_chosen(state: TableState, event: PassChosen, at: datetime) -> TableState:
    match = state.match
    rnd = match.round if match is not None else None
    if rnd is None or event.cards is None:
        return state
    seat = event.seat
    passes = list(rnd.passes)
    passes[seat] = sorted_cards(event.cards)
    hands = list(rnd.hands)
    hands[seat] = hands[seat] - frozenset(event.cards)
    rnd = evolved(rnd, passes=tuple(passes), hands=tuple(hands))
    if all(chosen is not None for chosen in passes):
        rnd = _exchange(rnd, at)
    return _with_match(state, evolved(match, round=rnd))


def _exchange(rnd: Round, at: datetime) -> Round:
    # The exchange happens at once when the last choice arrives.
    hands = list(rnd.hands)
    players = rnd.rules.players
    for giver, cards in enumerate(rnd.passes):
        receiver = receiver_of(giver, rnd.direction, players)
        hands[receiver] = hands[receiver] | frozenset(cards or ())
    return evolved(
        rnd,
        hands=tuple(hands),
        exchanged=True,
        trick=Trick(1, first_leader(hands, rnd.number, rnd.rules)),
        awaiting_since=at,
    )


def _card_played(state: TableState, event: CardPlayed, at: datetime) -> TableState:
    # The hot path of a replay (52 of every ~56 events): one copy each of the
    # trick, the round, the match and the table per card, nothing recomputed.
    match = state.match
    rnd = match.round if match is not None else None
    if rnd is None:
        return state
    seat, card = event.seat, event.card
    trick = rnd.trick
    hands = list(rnd.hands)
    hand = hands[seat]
    hands[seat] = hand - {card}
    revokes = rnd.revokes
    # A revoke: not following the led suit while holding it.
    if trick.cards:
        led = trick.cards[0][1][1]
        if card[1] != led and has_suit(hand, led):
            revokes = revokes + ((seat, trick.number),)
    cards = trick.cards + ((seat, card),)
    rules = rnd.rules
    # Any heart breaks hearts; the queen of spades only where the rule set says so.
    hearts_broken = rnd.hearts_broken or card[1] == HEARTS or (card == QUEEN_OF_SPADES and rules.queen_breaks_hearts)
    if len(cards) < rules.players:
        rnd = evolved(
            rnd,
            hands=tuple(hands),
            trick=evolved(trick, cards=cards),
            revokes=revokes,
            hearts_broken=hearts_broken,
            awaiting_since=at,
        )
        return evolved(state, matches=state.matches[:-1] + (evolved(match, round=rnd),))
    rnd = evolved(
        rnd,
        hands=tuple(hands),
        revokes=revokes,
        hearts_broken=hearts_broken,
        awaiting_since=at,
        **_complete_trick(rnd, evolved(trick, cards=cards)),
    )
    if len(rnd.tricks) == rules.hand_size:
        if needs_moon_choice(rnd):
            # A moon under `shooter_chooses`: the round waits for its shooter.
            rnd = evolved(rnd, moon_choice=moon_shooter(rnd))
            return _with_match(state, evolved(match, round=rnd))
        points, moon = round_points(rnd)
        return _end_round(state, match, rnd, points, moon, None)
    return _with_match(state, evolved(match, round=rnd))


def _complete_trick(rnd: Round, trick: Trick) -> dict[str, object]:
    """The changes to the round when `trick` gets its fourth card."""
    # The highest card of the led suit wins the trick; the winner leads the next.
    winner = trick_winner(trick)
    taken = list(rnd.taken)
    taken[winner] += trick_points(trick, rnd.rules)
    tricks_taken = list(rnd.tricks_taken)
    tricks_taken[winner] += 1
    return {
        "trick": evolved(trick, number=trick.number + 1, leader=winner, cards=()),
        "tricks": rnd.tricks + (evolved(trick, winner=winner),),
        "taken": tuple(taken),
        "tricks_taken": tuple(tricks_taken),
    }


def _revoke_accused(state: TableState, event: RevokeAccused, at: datetime) -> TableState:
    match = state.match
    rnd = match.round if match is not None else None
    if rnd is None:
        return state
    # The round ends at once: 26 to the penalized seat, 0 to the others.
    accusation = Accusation(event.seat, event.accused, event.revoke_found, event.penalized_seat)
    return _end_round(state, match, rnd, accusation_points(event.penalized_seat, rnd.rules), None, accusation)


def _moon_chosen(state: TableState, event: MoonChosen, at: datetime) -> TableState:
    match = state.match
    rnd = match.round if match is not None else None
    if rnd is None or rnd.moon_choice is None:
        return state
    # The shooter's choice settles how the moon is paid; the round ends.
    points, moon = round_points(rnd, event.choice)
    return _end_round(state, match, evolved(rnd, moon_choice=None), points, moon, None)


def _end_round(
    state: TableState,
    match: Match,
    rnd: Round,
    points: tuple[int, ...],
    moon: int | None,
    accusation: Accusation | None,
) -> TableState:
    # Round points are added to the match scores; then the end-of-match check runs.
    scores = tuple(score + added for score, added in zip(match.scores, points, strict=True))
    record = RoundRecord(rnd, points, moon, accusation, scores)
    result = target_result(scores, state.options)
    return _with_match(state, evolved(match, scores=scores, history=match.history + (record,), round=None, result=result))




_APPLY: dict[type[Event], Callable[[TableState, Event, datetime], TableState]] = {
    TableCreated: _table_created,
    PlayerSeated: _player_seated,
    BotSeated: _bot_seated,
    SpectatorJoined: _spectator_joined,
    PreferencesChanged: _preferences_changed,
    MatchStarted: _match_started,
    RoundDealt: _round_dealt,
    PassChosen: _pass_chosen,
    CardPlayed: _card_played,
    RevokeAccused: _revoke_accused,
    MoonChosen: _moon_chosen,
    Resigned: _resigned,
    MatchAbandoned: _match_abandoned,
}  # type: ignore[dict-item]

"""decide(state, command, context) -> events, or a named RuleViolation.

A command is checked against the rules in the order the contract fixes for
its error codes. Then the table's own follow-ups are added: the match starts
when the fourth seat fills, and a round is dealt whenever a running match has
none (at the start, after 13 tricks, after an accusation).
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from . import errors, rule_set
from .cards import DECK, sorted_cards
from .commands import (
    Abandon,
    Accuse,
    ChangePreferences,
    ChoosePass,
    Command,
    CreateTable,
    Join,
    PlayCard,
    Rematch,
    Resign,
    SeatBots,
)
from .commitment import deal_commitment
from .events import (
    BotSeated,
    CardPlayed,
    Event,
    MatchAbandoned,
    MatchStarted,
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
from .evolve import evolve
from .rules import play_violation
from .state import BOT_LEVELS, DECK_DESIGNS, Direction, Revoke, Round, TableState

STALL_SECONDS = 48 * 3600


@dataclass(frozen=True)
class Context:
    """What a decision may depend on besides the state: the clock and chance."""

    now: datetime
    rng: random.Random = field(default_factory=secrets.SystemRandom)
    stall_seconds: float = STALL_SECONDS


def decide(state: TableState, command: Command, context: Context) -> tuple[Event, ...]:
    """The events that carry out `command`, or a RuleViolation saying why not."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise TypeError(f"unknown command {command!r}")
    if not state.created and not isinstance(command, CreateTable):
        raise errors.TableNotCreated()
    events = handler(state, command, context)
    if not _may_need_follow_up(state, events):
        return events
    return events + follow_ups(state, events, context)


def _may_need_follow_up(state: TableState, events: tuple[Event, ...]) -> bool:
    """False when `events` surely leave nothing for the table to do by itself.

    A fast path for the commands of every turn: `follow_ups` applies the events
    to find out, which costs as much again as the move. A pass never starts a
    match nor ends a round; a card ends a round only as the last card of the
    13th trick. Anything else is left to `follow_ups`.
    """
    if len(events) != 1:
        return True
    event = events[0]
    if type(event) is PassChosen:
        return False
    if type(event) is CardPlayed:
        rnd = state.round
        return rnd is None or (rnd.trick.number == 13 and len(rnd.trick.cards) == 3)
    return True


def follow_ups(state: TableState, events: tuple[Event, ...], context: Context) -> tuple[Event, ...]:
    """What the table does by itself after `events`: start the match, deal the next round."""
    state = apply(state, events, context.now)
    added: list[Event] = []
    while True:
        event = _next_follow_up(state, context)
        if event is None:
            return tuple(added)
        added.append(event)
        state = apply(state, (event,), context.now)


def apply(state: TableState, events: tuple[Event, ...] | list[Event], at: datetime) -> TableState:
    """The state after `events`, numbered after the current version."""
    for event in events:
        state = evolve(state, Recorded(state.version + 1, at, event))
    return state


def _next_follow_up(state: TableState, context: Context) -> Event | None:
    match = state.match
    # The match starts when the fourth seat is filled.
    if match is None:
        return MatchStarted(1) if not state.empty_seats else None
    # A running match without a round gets the next deal.
    if match.result is None and match.round is None:
        return deal(match.number, match.next_round_number, context.rng)
    return None


def deal(match: int, round_number: int, rng: random.Random) -> RoundDealt:
    # A uniformly shuffled 52-card deck, 13 cards each; the salt makes the commitment hiding.
    deck = list(DECK)
    rng.shuffle(deck)
    hands = tuple(sorted_cards(deck[seat * 13 : seat * 13 + 13]) for seat in range(4))
    salt = rng.randbytes(32).hex()
    return RoundDealt(match, round_number, deal_commitment(hands, salt), hands, salt)


# -- seating -------------------------------------------------------------------


def _create_table(state: TableState, command: CreateTable, context: Context) -> tuple[Event, ...]:
    if state.created:
        raise errors.TableAlreadyCreated()
    rule_set.check(command.options)  # the combinations section 9 refuses
    rule_set.check_played(command.options)
    return (TableCreated(0, command.name, command.options),)


def _join(state: TableState, command: Join, context: Context) -> tuple[Event, ...]:
    # The first three people to open the invite take the empty seats; later ones watch.
    if state.match is None and state.empty_seats:
        return (PlayerSeated(state.empty_seats[0], command.name),)
    return (SpectatorJoined(len(state.spectators) + 1, command.name),)


def _seat_bots(state: TableState, command: SeatBots, context: Context) -> tuple[Event, ...]:
    # Before the match starts, the creator may fill empty seats with bots.
    if command.seat != 0:
        raise errors.NotTheCreator()
    if command.level not in BOT_LEVELS:
        raise errors.InvalidCommand(f"bot level is one of {', '.join(BOT_LEVELS)}")
    seats = command.seats or state.empty_seats
    if not seats:
        raise errors.TableFull()
    for seat in seats:
        if not 0 <= seat < 4 or not state.seats[seat].is_empty:
            raise errors.SeatTaken(f"seat {seat} is taken")
    return tuple(BotSeated(seat, f"Bot {seat}", command.level) for seat in sorted(set(seats)))


def _change_preferences(state: TableState, command: ChangePreferences, context: Context) -> tuple[Event, ...]:
    if command.deck_design is not None and command.deck_design not in DECK_DESIGNS:
        raise errors.InvalidCommand(f"deck_design is one of {', '.join(DECK_DESIGNS)}")
    return (PreferencesChanged(command.seat, command.spectator, command.name, command.deck_design),)


# -- the round -----------------------------------------------------------------


def _running_round(state: TableState) -> Round:
    rnd = state.round
    if rnd is None:
        raise errors.MatchNotRunning()
    return rnd


def _choose_pass(state: TableState, command: ChoosePass, context: Context) -> tuple[Event, ...]:
    cards = command.cards
    if len(cards) != 3 or len(set(cards)) != 3:
        raise errors.InvalidPass()
    rnd = _running_round(state)
    # Round 4 of every cycle has no pass.
    if rnd.direction is Direction.NONE:
        raise errors.NoPassThisRound()
    if not rnd.is_passing:
        raise errors.WrongPhase("the cards have been exchanged; the tricks are being played")
    # Three cards from the hand the seat was dealt.
    dealt = rnd.dealt[command.seat]
    for card in cards:
        if card not in dealt:
            raise errors.CardNotInHand(f"{card} is not in your hand")
    # A submitted choice is final.
    if rnd.passes[command.seat] is not None:
        raise errors.PassAlreadySubmitted()
    match = state.match
    assert match is not None
    return (PassChosen(command.seat, match.number, rnd.number, sorted_cards(cards)),)


def _play_card(state: TableState, command: PlayCard, context: Context) -> tuple[Event, ...]:
    rnd = _running_round(state)
    if rnd.is_passing:
        raise errors.WrongPhase("the seats are still passing cards")
    if state.turn != command.seat:
        raise errors.NotYourTurn(f"seat {state.turn} plays now")
    revoke_allowed = state.options.revoke is Revoke.ALLOWED and not state.seats[command.seat].is_bot
    violation = play_violation(rnd, command.seat, command.card, revoke_allowed=revoke_allowed)
    if violation is not None:
        raise violation
    return (CardPlayed(command.seat, command.card),)


def _accuse(state: TableState, command: Accuse, context: Context) -> tuple[Event, ...]:
    # Seats are 0..3: an accusation of no seat would otherwise penalize the accuser.
    if not 0 <= command.accused < 4:
        raise errors.InvalidCommand("the accused seat is 0..3")
    rnd = _running_round(state)
    if state.options.revoke is Revoke.PREVENTED:
        raise errors.RevokeNotAllowed()
    # Accusations are made while the tricks are being played.
    if rnd.is_passing:
        raise errors.WrongPhase("accusations are made while the tricks are played")
    if command.accused == command.seat:
        raise errors.CannotAccuseSelf()
    if not state.seats[command.seat].is_human:
        raise errors.BotsDoNotAccuse()
    # The accused seat pays 26 if it revoked this round; otherwise the accuser does.
    found = command.accused in rnd.revokers
    penalized = command.accused if found else command.seat
    return (RevokeAccused(command.seat, command.accused, found, penalized),)


# -- the end of a match ---------------------------------------------------------


def _resign(state: TableState, command: Resign, context: Context) -> tuple[Event, ...]:
    if not state.is_running:
        raise errors.MatchNotRunning()
    return (Resigned(command.seat),)


def _abandon(state: TableState, command: Abandon, context: Context) -> tuple[Event, ...]:
    if not state.is_running:
        raise errors.MatchNotRunning()
    awaited = state.awaiting
    if command.seat in awaited:
        raise errors.AwaitedSeatCannotAbandon()
    since = state.awaiting_since
    # Only after the table has waited more than 48 hours on some seat's action.
    if not awaited or since is None or context.now - since <= timedelta(seconds=context.stall_seconds):
        raise errors.NotStalled()
    return (MatchAbandoned(command.seat, awaited),)


def _rematch(state: TableState, command: Rematch, context: Context) -> tuple[Event, ...]:
    # After a finished match: same seats and options, scores 0, the pass cycle from left.
    match = state.match
    if match is None or match.result is None:
        raise errors.MatchNotFinished()
    return (MatchStarted(match.number + 1, requested_by=command.seat),)


_HANDLERS = {
    CreateTable: _create_table,
    Join: _join,
    SeatBots: _seat_bots,
    ChangePreferences: _change_preferences,
    ChoosePass: _choose_pass,
    PlayCard: _play_card,
    Accuse: _accuse,
    Resign: _resign,
    Abandon: _abandon,
    Rematch: _rematch,
}

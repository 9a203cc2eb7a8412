"""decide(state, command, context) -> Decision(events, state), or a named RuleViolation.

A command is checked against the rules in the order the contract fixes for
its error codes. Then the table's own follow-ups are added: the match starts
when the last seat fills, and a round is dealt whenever a running match has
none (at the start, after the last trick, after an accusation). The decision
carries the state its events lead to, applied once: callers use it rather
than applying the events again.

`play_on` is the one loop that lets the table answer for its automatic seats
(the bots, or any chooser a tournament or a benchmark gives) until a seat
that does not answer inline must act; the service, the tournament and the
benchmarks all use it.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from . import errors, rule_set
from .cards import sorted_cards
from .commands import (
    Abandon,
    Accuse,
    ChangePreferences,
    ChooseMoon,
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
from .evolve import evolve
from .rule_set import MOON_CHOICES, RuleSet
from .rules import play_violation
from .state import BOT_LEVELS, DECK_DESIGNS, Direction, Revoke, Round, TableState

STALL_SECONDS = 48 * 3600


@dataclass(frozen=True)
class Context:
    """What a decision may depend on besides the state: the clock and chance."""

    now: datetime
    rng: random.Random = field(default_factory=secrets.SystemRandom)
    stall_seconds: float = STALL_SECONDS


class Decision(tuple):  # type: ignore[type-arg]
    """The events that carry out a command (a tuple of them) and the state they lead to."""

    state: TableState

    def __new__(cls, events: Iterable[Event], state: TableState) -> Decision:
        decision = super().__new__(cls, events)
        decision.state = state
        return decision

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self)


def decide(state: TableState, command: Command, context: Context) -> Decision:
    """The events that carry out `command` and the state after them, or a RuleViolation saying why not."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise TypeError(f"unknown command {command!r}")
    if not state.created and not isinstance(command, CreateTable):
        raise errors.TableNotCreated()
    events = handler(state, command, context)
    after = apply(state, events, context.now)
    if not _may_need_follow_up(state, events):
        return Decision(events, after)
    added: list[Event] = []
    while (event := _next_follow_up(after, context)) is not None:
        added.append(event)
        after = apply(after, (event,), context.now)
    return Decision(events + tuple(added), after)


Chooser = Callable[[TableState, int], "Command | None"]


def play_on(decision: Decision, context: Context, chooser: Chooser) -> Decision:
    """`decision` followed by the answers of the seats that answer inline, until none does.

    `chooser(state, seat)` gives the command of an awaited seat that answers
    at once (a bot, a tournament's player), or None for a seat the table must
    wait for (a human, or a bot that thinks off the request path).
    """
    events = list(decision)
    after = decision.state
    while True:
        moved = False
        for seat in after.awaiting:
            command = chooser(after, seat)
            if command is None:
                continue
            answer = decide(after, command, context)
            events.extend(answer)
            after = answer.state
            moved = True
            break  # the table moved on: ask again who is awaited
        if not moved:
            return Decision(events, after)


def _may_need_follow_up(state: TableState, events: tuple[Event, ...]) -> bool:
    """False when `events` surely leave nothing for the table to do by itself.

    A fast path for the commands of every turn: `follow_ups` applies the events
    to find out, which costs as much again as the move. A pass never starts a
    match nor ends a round; a card ends a round only as the last card of the
    last trick. Anything else is left to `follow_ups`.
    """
    if len(events) != 1:
        return True
    event = events[0]
    if type(event) is PassChosen:
        return False
    if type(event) is CardPlayed:
        rnd = state.round
        if rnd is None:
            return True
        rules = rnd.rules
        return rnd.trick.number == rules.hand_size and len(rnd.trick.cards) == rules.players - 1
    return True


def follow_ups(state: TableState, events: tuple[Event, ...], context: Context) -> tuple[Event, ...]:
    """What the table does by itself after `events`: start the match, deal the next round."""
    state = apply(state, events, context.now)
    added: list[Event] = []
    while (event := _next_follow_up(state, context)) is not None:
        added.append(event)
        state = apply(state, (event,), context.now)
    return tuple(added)


def apply(state: TableState, events: tuple[Event, ...] | list[Event], at: datetime) -> TableState:
    """The state after `events`, numbered after the current version."""
    for event in events:
        state = evolve(state, Recorded(state.version + 1, at, event))
    return state


def _next_follow_up(state: TableState, context: Context) -> Event | None:
    match = state.match
    # The match starts when the last seat is filled.
    if match is None:
        return MatchStarted(1) if not state.empty_seats else None
    # A running match without a round gets the next deal.
    if match.result is None and match.round is None:
        return deal(match.number, match.next_round_number, context.rng, state.options)
    return None


def deal(match: int, round_number: int, rng: random.Random, rules: RuleSet | None = None) -> RoundDealt:
    # A uniformly shuffled deck of the rule set (52 cards; 51 or 50 with 3 or 5 players),
    # the same number of cards each; the salt makes the commitment hiding.
    rules = rules if rules is not None else RuleSet()
    deck = list(rules.deck)
    rng.shuffle(deck)
    size = rules.hand_size
    hands = tuple(sorted_cards(deck[seat * size : seat * size + size]) for seat in rules.seats)
    salt = rng.randbytes(32).hex()
    return RoundDealt(match, round_number, deal_commitment(hands, salt), hands, salt)


# -- seating -------------------------------------------------------------------


def _create_table(state: TableState, command: CreateTable, context: Context) -> tuple[Event, ...]:
    if state.created:
        raise errors.TableAlreadyCreated()
    rule_set.check(command.options)  # the combinations section 9 refuses
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
        if not 0 <= seat < len(state.seats):
            raise errors.InvalidSeat(f"seat {seat} is not a seat of this table (0..{len(state.seats) - 1})", "seats")
        if not state.seats[seat].is_empty:
            raise errors.SeatTaken(f"seat {seat} is taken")
    return tuple(BotSeated(seat, f"Bot {seat}", command.level) for seat in sorted(set(seats)))


def _change_preferences(state: TableState, command: ChangePreferences, context: Context) -> tuple[Event, ...]:
    if command.deck_design is not None and command.deck_design not in DECK_DESIGNS:
        raise errors.InvalidCommand(f"deck_design is one of {', '.join(DECK_DESIGNS)}")
    # Preferences belong to a seated player or a spectator of this table.
    if command.seat is not None:
        if not 0 <= command.seat < len(state.seats) or state.seats[command.seat].is_empty:
            raise errors.InvalidCommand(f"seat {command.seat} is empty")
    elif not any(spectator.number == command.spectator for spectator in state.spectators):
        raise errors.InvalidCommand(f"there is no spectator {command.spectator}")
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
    # A round of the cycle without passing (round 4 of the classic cycle).
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
    # An accusation of no seat would otherwise penalize the accuser.
    if not 0 <= command.accused < len(state.seats):
        raise errors.InvalidSeat(f"seat {command.accused} is not a seat of this table (0..{len(state.seats) - 1})", "seat")
    rnd = _running_round(state)
    if state.options.revoke is Revoke.PREVENTED:
        raise errors.RevokeNotAllowed()
    # Accusations are made while the tricks are being played (not after the last one).
    if rnd.is_passing or rnd.is_complete:
        raise errors.WrongPhase("accusations are made while the tricks are played")
    if command.accused == command.seat:
        raise errors.CannotAccuseSelf()
    if not state.seats[command.seat].is_human:
        raise errors.BotsDoNotAccuse()
    # The accused seat pays the penalty (26 in classic) if it revoked this round; otherwise the accuser does.
    found = command.accused in rnd.revokers
    penalized = command.accused if found else command.seat
    return (RevokeAccused(command.seat, command.accused, found, penalized),)


def _choose_moon(state: TableState, command: ChooseMoon, context: Context) -> tuple[Event, ...]:
    if command.choice not in MOON_CHOICES:
        raise errors.InvalidCommand(f"choice is one of {', '.join(MOON_CHOICES)}")
    rnd = _running_round(state)
    # Only a moon under `shooter_chooses` waits for a choice, and only the shooter makes it.
    if rnd.moon_choice is None:
        raise errors.WrongPhase("no moon choice is due")
    if command.seat != rnd.moon_choice:
        raise errors.NotYourTurn(f"seat {rnd.moon_choice} chooses how its moon is paid")
    return (MoonChosen(command.seat, command.choice),)


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
    ChooseMoon: _choose_moon,
    Resign: _resign,
    Abandon: _abandon,
    Rematch: _rematch,
}

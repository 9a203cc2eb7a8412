"""The audit: the replayed record of every round, and a check of a whole stream.

    audit_record(state, viewer) -> dict          the body of GET /v1/tables/{id}/audit
    StreamAuditor().feed(recorded) / .finish()   findings for `copas audit`

`audit_record` is built from the replayed state only (every match keeps its
rounds in `Match.history`), with the same secrecy as the view and the event
log: while a match runs, the current round's deal and salt are withheld
(a seat sees its own dealt hand), and a pass is shown only to the seat that
made it and, once the cards have moved, to the seat that received it. When
a round ends (however it ends) its deal, salt and passes become public;
when a match ends, every card of it is.

`StreamAuditor` replays a stored stream event by event and, before applying
each one, checks that it is a decision the rules allowed: `evolve` trusts
events and never raises, so a tampered or corrupted stream would otherwise
replay silently into a different game.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .cards import DECK, sorted_cards
from .commitment import commitment_matches
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
from .rules import giver_to, play_violation, receiver_of
from .state import SEATS, Direction, Match, Revoke, Round, RoundRecord, TableState, Trick
from .viewers import Viewer
from .views import options_entry, result_entry

STALL_SECONDS = 48 * 3600

# -- the record ---------------------------------------------------------------------


def audit_record(state: TableState, viewer: Viewer) -> dict[str, Any]:
    """Every match and round of the table as `viewer` may see it now."""
    return {
        "version": state.version,
        "status": state.status.value,
        "options": options_entry(state.options),
        "seats": [
            {"seat": seat, "name": info.name, "kind": info.kind.value} for seat, info in enumerate(state.seats)
        ],
        "matches": [_match_entry(match, viewer) for match in state.matches],
    }


def _match_entry(match: Match, viewer: Viewer) -> dict[str, Any]:
    finished = match.result is not None
    rounds = [_round_entry(record.round, record, None, True, viewer) for record in match.history]
    if match.round is not None:
        # The running round, or the unfinished round of a resigned or abandoned match.
        reason = match.result.reason.value if match.result is not None else None
        rounds.append(_round_entry(match.round, None, reason, finished, viewer))
    return {
        "match": match.number,
        "status": "finished" if finished else "running",
        "rounds": rounds,
        "scores": list(match.scores),
        "result": result_entry(match.result) if match.result is not None else None,
    }


def _round_entry(
    rnd: Round, record: RoundRecord | None, cut_short: str | None, public: bool, viewer: Viewer
) -> dict[str, Any]:
    if record is not None:
        ended = "accusation" if record.accusation is not None else "tricks"
    else:
        ended = cut_short  # "resign" / "abandon", or None while the round runs
    return {
        "round": rnd.number,
        "pass_direction": rnd.direction.value,
        "ended": ended,
        "commitment": rnd.commitment,
        "deal": _deal_entry(rnd, public, viewer),
        "commitment_ok": commitment_matches(rnd.commitment, rnd.dealt, rnd.salt) if public else None,
        "passes": _passes_entry(rnd, public, viewer),
        "tricks": [_trick_entry(trick) for trick in rnd.tricks],
        "current_trick": _trick_entry(rnd.trick) if record is None and rnd.trick.cards else None,
        "points": list(record.points) if record is not None else None,
        "moon": record.moon if record is not None else None,
        "accusation": _accusation_entry(record) if record is not None else None,
        "scores": list(record.scores) if record is not None else None,
    }


def _deal_entry(rnd: Round, public: bool, viewer: Viewer) -> dict[str, Any]:
    if public:
        return {"hands": [list(hand) for hand in rnd.dealt], "salt": rnd.salt}
    # Until the round ends a seat sees its own dealt hand, and nobody the salt.
    return {
        "hands": [list(hand) if seat == viewer.seat else None for seat, hand in enumerate(rnd.dealt)],
        "salt": None,
    }


def _passes_entry(rnd: Round, public: bool, viewer: Viewer) -> list[dict[str, Any]] | None:
    if rnd.direction is Direction.NONE:
        return None
    entries = []
    for seat in SEATS:
        cards = rnd.passes[seat]
        chosen = cards is not None
        visible = public or seat == viewer.seat
        # The receiver learns what it got once the cards have moved.
        if not visible and viewer.seat is not None and rnd.exchanged:
            visible = giver_to(viewer.seat, rnd.direction) == seat
        entries.append(
            {
                "seat": seat,
                "to": receiver_of(seat, rnd.direction),
                "chosen": chosen,
                "cards": list(sorted_cards(cards)) if chosen and visible and cards is not None else None,
            }
        )
    return entries


def _trick_entry(trick: Trick) -> dict[str, Any]:
    return {
        "number": trick.number,
        "leader": trick.leader,
        "cards": [{"seat": seat, "card": card} for seat, card in trick.cards],
        "winner": trick.winner,
    }


def _accusation_entry(record: RoundRecord) -> dict[str, Any] | None:
    accusation = record.accusation
    if accusation is None:
        return None
    return {
        "accuser": accusation.accuser,
        "accused": accusation.accused,
        "revoke_found": accusation.revoke_found,
        "penalized_seat": accusation.penalized_seat,
    }


# -- checking a stream --------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """Something wrong with a stored stream: at which event (seq; 0 for the table) and what."""

    seq: int
    code: str
    detail: str


_SALT = re.compile(r"^[0-9a-f]{64}$")
_DECK = frozenset(DECK)


class StreamAuditor:
    """Replays one table's stream and checks every event before applying it.

    Checks: seqs run 1, 2, 3, ... without gaps; each event was a legal
    decision in the state before it (the turn, the phase, the card rules of
    `play_violation` with the table's revoke option, passes from the dealt
    hand, accusations and abandonments as `decide` would have settled them);
    each deal is 4 sorted hands of 13 forming the 52-card deck, with a salt of
    64 hex digits and a commitment that matches; a running match always has a
    round dealt.
    """

    def __init__(self, stall_seconds: float = STALL_SECONDS) -> None:
        self.state = TableState()
        self.findings: list[Finding] = []
        self.events = 0
        self.stall_seconds = stall_seconds
        self._expected_seq = 1

    def report(self, seq: int, code: str, detail: str) -> None:
        self.findings.append(Finding(seq, code, detail))

    def feed(self, recorded: Recorded) -> None:
        seq = recorded.seq
        if seq == self._expected_seq:
            self._expected_seq = seq + 1
        else:
            self._out_of_order(seq)
            self._expected_seq = max(self._expected_seq, seq + 1)
        state = self.state
        event = recorded.event
        if state.created:
            check = _CHECKS.get(type(event))
            problem = check(self, state, event, recorded.at) if check is not None else None
            if problem is not None:
                self.report(seq, problem[0], f"{event.type}: {problem[1]}")
        elif type(event) is not TableCreated:
            self.report(seq, "not_created", f"{event.type} before the table was created")
        # A running match without a round is dealt one at once (in the same command).
        matches = state.matches
        if matches and matches[-1].round is None and matches[-1].result is None and type(event) is not RoundDealt:
            self.report(seq, "deal_missing", f"{event.type} while the running match has no round dealt")
        self.state = evolve(state, recorded)
        self.events += 1

    def _out_of_order(self, seq: int) -> None:
        expected = self._expected_seq
        if seq > expected:
            missing = f"{expected}" if seq == expected + 1 else f"{expected}..{seq - 1}"
            self.report(seq, "seq_gap", f"events {missing} are missing before seq {seq}")
        else:
            self.report(seq, "seq_order", f"seq {seq} comes after seq {expected - 1}")

    def finish(self) -> TableState:
        """The replayed state, after the end-of-stream checks."""
        match = self.state.match
        if match is not None and match.result is None and match.round is None:
            self.report(self.state.version, "deal_missing", "the stream ends with a running match and no round dealt")
        return self.state


Problem = tuple[str, str] | None


def _table_created(auditor: StreamAuditor, state: TableState, event: TableCreated, at: datetime) -> Problem:
    if state.created:
        return "illegal_event", "the table was already created"
    if event.seat != 0:
        return "illegal_event", "the creator takes seat 0"
    return None


def _seat_taken(state: TableState, seat: int) -> Problem:
    if state.match is not None:
        return "illegal_event", "seats are filled before the match starts"
    if not 0 <= seat < 4 or not state.seats[seat].is_empty:
        return "illegal_event", f"seat {seat} is not empty"
    return None


def _player_seated(auditor: StreamAuditor, state: TableState, event: PlayerSeated, at: datetime) -> Problem:
    problem = _seat_taken(state, event.seat)
    if problem is None and event.seat != state.empty_seats[0]:
        return "illegal_event", f"a joiner takes the lowest empty seat ({state.empty_seats[0]}), not {event.seat}"
    return problem


def _bot_seated(auditor: StreamAuditor, state: TableState, event: BotSeated, at: datetime) -> Problem:
    return _seat_taken(state, event.seat)


def _spectator_joined(auditor: StreamAuditor, state: TableState, event: SpectatorJoined, at: datetime) -> Problem:
    if event.spectator != len(state.spectators) + 1:
        return "illegal_event", f"spectator {event.spectator} joins as number {len(state.spectators) + 1}"
    return None


def _preferences_changed(auditor: StreamAuditor, state: TableState, event: PreferencesChanged, at: datetime) -> Problem:
    if event.seat is not None:
        return None if 0 <= event.seat < 4 and not state.seats[event.seat].is_empty else ("illegal_event", f"seat {event.seat} is empty")
    if not any(s.number == event.spectator for s in state.spectators):
        return "illegal_event", f"no spectator {event.spectator}"
    return None


def _match_started(auditor: StreamAuditor, state: TableState, event: MatchStarted, at: datetime) -> Problem:
    match = state.match
    if match is None:
        if state.empty_seats:
            return "illegal_event", f"the match starts with empty seats {list(state.empty_seats)}"
        return None if event.match == 1 else ("illegal_event", f"the first match is numbered {event.match}")
    if match.result is None:
        return "illegal_event", f"match {match.number} is still running"
    if event.match != match.number + 1:
        return "illegal_event", f"match {event.match} follows match {match.number}"
    return None


def _round_dealt(auditor: StreamAuditor, state: TableState, event: RoundDealt, at: datetime) -> Problem:
    match = state.match
    if match is None or match.result is not None:
        return "illegal_event", "a deal with no running match"
    if match.round is not None:
        return "illegal_event", f"round {match.round.number} is still being played"
    if event.match != match.number or event.round != match.next_round_number:
        return "illegal_event", f"dealt as match {event.match} round {event.round}, expected match {match.number} round {match.next_round_number}"
    hands = event.hands
    if event.salt is None or any(hand is None for hand in hands):
        return "bad_deal", "the stored deal has withheld hands or salt"
    cards = [card for hand in hands for card in hand]  # type: ignore[union-attr]
    if len(hands) != 4 or any(len(hand) != 13 for hand in hands) or len(cards) != 52 or set(cards) != _DECK:  # type: ignore[arg-type]
        return "bad_deal", "the four hands are not 13 cards each of one 52-card deck"
    if any(tuple(hand) != sorted_cards(hand) for hand in hands):  # type: ignore[arg-type]
        return "bad_deal", "a hand is not sorted by suit C D H S, then rank"
    if not _SALT.match(event.salt):
        return "bad_deal", "the salt is not 64 lowercase hex digits"
    if not commitment_matches(event.commitment, hands, event.salt):  # type: ignore[arg-type]
        return "commitment_mismatch", f"match {event.match} round {event.round}: the hands and salt do not hash to the commitment {event.commitment}"
    return None


def _running_round(state: TableState) -> Round | None:
    return state.round


def _pass_chosen(auditor: StreamAuditor, state: TableState, event: PassChosen, at: datetime) -> Problem:
    rnd = _running_round(state)
    if rnd is None:
        return "illegal_event", "no round is being played"
    if rnd.direction is Direction.NONE:
        return "illegal_event", "no pass this round"
    if not rnd.is_passing:
        return "illegal_event", "the cards were already exchanged"
    if event.match != state.match.number or event.round != rnd.number:  # type: ignore[union-attr]
        return "illegal_event", f"labelled match {event.match} round {event.round}"
    if rnd.passes[event.seat] is not None:
        return "illegal_event", f"seat {event.seat} had already passed"
    cards = event.cards
    if cards is None:
        return "illegal_event", "the stored pass has withheld cards"
    if len(cards) != 3 or len(set(cards)) != 3:
        return "illegal_event", "a pass is three distinct cards"
    missing = [card for card in cards if card not in rnd.dealt[event.seat]]
    if missing:
        return "illegal_event", f"seat {event.seat} passes {missing} that it was not dealt"
    return None


def _card_played(auditor: StreamAuditor, state: TableState, event: CardPlayed, at: datetime) -> Problem:
    # The hot path (52 of every ~56 events): the properties are spelled out.
    match = state.matches[-1] if state.matches else None
    rnd = match.round if match is not None and match.result is None else None
    if rnd is None:
        return "illegal_event", "no round is being played"
    if not rnd.exchanged:
        return "illegal_event", "the seats are still passing"
    trick = rnd.trick
    seat = event.seat
    turn = (trick.leader + len(trick.cards)) % 4
    if seat != turn:
        return "illegal_play", f"seat {seat} played {event.card} on seat {turn}'s turn"
    revoke_allowed = state.options.revoke is Revoke.ALLOWED and not state.seats[seat].is_bot
    violation = play_violation(rnd, seat, event.card, revoke_allowed=revoke_allowed)
    if violation is not None:
        return "illegal_play", f"seat {seat} played {event.card} on trick {trick.number}: {violation.code}"
    return None


def _revoke_accused(auditor: StreamAuditor, state: TableState, event: RevokeAccused, at: datetime) -> Problem:
    rnd = _running_round(state)
    if rnd is None or rnd.is_passing:
        return "illegal_event", "accusations are made while the tricks are played"
    if state.options.revoke is Revoke.PREVENTED:
        return "illegal_event", "the table prevents revokes"
    if event.accused == event.seat or not state.seats[event.seat].is_human:
        return "illegal_event", f"seat {event.seat} may not accuse seat {event.accused}"
    found = event.accused in rnd.revokers
    penalized = event.accused if found else event.seat
    if event.revoke_found != found or event.penalized_seat != penalized:
        return "illegal_event", f"recorded revoke_found={event.revoke_found}, penalized {event.penalized_seat}; the plays say {found}, {penalized}"
    return None


def _resigned(auditor: StreamAuditor, state: TableState, event: Resigned, at: datetime) -> Problem:
    if not state.is_running:
        return "illegal_event", "no match is running"
    return None


def _match_abandoned(auditor: StreamAuditor, state: TableState, event: MatchAbandoned, at: datetime) -> Problem:
    if not state.is_running:
        return "illegal_event", "no match is running"
    if tuple(event.awaited) != state.awaiting or event.seat in state.awaiting:
        return "illegal_event", f"awaited {list(event.awaited)} by seat {event.seat}; the table awaited {list(state.awaiting)}"
    since = state.awaiting_since
    if since is None or (at - since).total_seconds() <= auditor.stall_seconds:
        return "illegal_event", "the table had not waited long enough"
    return None


_CHECKS: dict[type[Event], Callable[[StreamAuditor, TableState, Any, datetime], Problem]] = {
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
    Resigned: _resigned,
    MatchAbandoned: _match_abandoned,
}

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
each one, checks that it is a decision the rules allowed: it rebuilds the
command from the event and requires `decide` to produce that same event
(`evolve` trusts events and never raises, so a tampered or corrupted stream
would otherwise replay silently into a different game). The deal checks
stay apart: a deal is chance, not a decision.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .cards import sorted_cards
from .commitment import commitment_matches
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
from . import commands as do
from .decide import Context, decide
from .errors import RuleViolation
from .rules import receiver_of
from .state import Direction, Match, Round, RoundRecord, TableState, Trick
from .viewers import Viewer
from .views import options_entry, result_entry
from .visibility import may_see_hand, may_see_pass, may_see_salt

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
        "matches": [_match_entry(state, match, viewer) for match in state.matches],
    }


def _match_entry(state: TableState, match: Match, viewer: Viewer) -> dict[str, Any]:
    finished = match.result is not None
    rounds = [_round_entry(state, match, record.round, record, None, viewer) for record in match.history]
    if match.round is not None:
        # The running round, or the unfinished round of a resigned or abandoned match.
        reason = match.result.reason.value if match.result is not None else None
        rounds.append(_round_entry(state, match, match.round, None, reason, viewer))
    return {
        "match": match.number,
        "status": "finished" if finished else "running",
        "rounds": rounds,
        "scores": list(match.scores),
        "result": result_entry(match.result) if match.result is not None else None,
    }


def _round_entry(
    state: TableState, match: Match, rnd: Round, record: RoundRecord | None, cut_short: str | None, viewer: Viewer
) -> dict[str, Any]:
    public = may_see_salt(state, match.number, rnd.number)
    if record is not None:
        ended = "accusation" if record.accusation is not None else "tricks"
    else:
        ended = cut_short  # "resign" / "abandon", or None while the round runs
    return {
        "round": rnd.number,
        "pass_direction": rnd.direction.value,
        "ended": ended,
        "commitment": rnd.commitment,
        "deal": _deal_entry(state, match, rnd, viewer),
        "commitment_ok": commitment_matches(rnd.commitment, rnd.dealt, rnd.salt) if public else None,
        "passes": _passes_entry(state, match, rnd, viewer),
        "tricks": [_trick_entry(trick) for trick in rnd.tricks],
        "current_trick": _trick_entry(rnd.trick) if record is None and rnd.trick.cards else None,
        "points": list(record.points) if record is not None else None,
        "moon": record.moon if record is not None else None,
        "accusation": _accusation_entry(record) if record is not None else None,
        "scores": list(record.scores) if record is not None else None,
    }


def _deal_entry(state: TableState, match: Match, rnd: Round, viewer: Viewer) -> dict[str, Any]:
    # Until the round ends a seat sees its own dealt hand, and nobody the salt.
    return {
        "hands": [
            list(hand) if may_see_hand(state, viewer, match.number, rnd.number, seat) else None
            for seat, hand in enumerate(rnd.dealt)
        ],
        "salt": rnd.salt if may_see_salt(state, match.number, rnd.number) else None,
    }


def _passes_entry(state: TableState, match: Match, rnd: Round, viewer: Viewer) -> list[dict[str, Any]] | None:
    if rnd.direction is Direction.NONE:
        return None
    entries = []
    for seat in rnd.rules.seats:
        cards = rnd.passes[seat]
        chosen = cards is not None
        visible = may_see_pass(state, viewer, match.number, rnd.number, seat)
        entries.append(
            {
                "seat": seat,
                "to": receiver_of(seat, rnd.direction, rnd.rules.players),
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


class StreamAuditor:
    """Replays one table's stream and checks every event before applying it.

    Checks: seqs run 1, 2, 3, ... without gaps; each event a player's command
    caused is what `decide` answers to that command, rebuilt from the event,
    in the state before it (so the rules are checked by the rules themselves,
    for every rule set); the table's own follow-ups (the first match's start,
    the deals) come when they should; each deal is one sorted hand per seat
    forming the rule set's deck, with a salt of 64 hex digits and a commitment
    that matches; a running match always has a round dealt.
    """

    def __init__(self, stall_seconds: float = STALL_SECONDS) -> None:
        self.state = TableState()
        self.findings: list[Finding] = []
        self.events = 0
        self.stall_seconds = stall_seconds
        self._expected_seq = 1
        self._after: TableState | None = None  # the state `decide` reached with exactly the stored event

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
        if state.created or type(event) is TableCreated:
            check = _CHECKS.get(type(event), _decided)
            problem = check(self, state, event, recorded.at)
            if problem is not None:
                self.report(seq, problem[0], f"{event.type}: {problem[1]}")
        else:
            self.report(seq, "not_created", f"{event.type} before the table was created")
        # A running match without a round is dealt one at once (in the same command).
        matches = state.matches
        if matches and matches[-1].round is None and matches[-1].result is None and type(event) is not RoundDealt:
            self.report(seq, "deal_missing", f"{event.type} while the running match has no round dealt")
        after, self._after = self._after, None
        # The event is applied once: `decide` already applied it when it made exactly this event alone.
        self.state = after if after is not None and seq == state.version + 1 else evolve(state, recorded)
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
_NO_CHANCE = random.Random(0)  # the follow-ups' deals of a re-decided command are never compared


def _decided(auditor: StreamAuditor, state: TableState, event: Event, at: datetime) -> Problem:
    """Rebuild the command that `event` records and require `decide` to answer with that same event."""
    command = _command_of(event)
    if command is None:
        return "illegal_event", "the stored event has withheld fields"
    context = Context(now=at, rng=_NO_CHANCE, stall_seconds=auditor.stall_seconds)
    try:
        decided = decide(state, command, context)
    except RuleViolation as violation:
        return _refused(state, event, violation)
    except (IndexError, KeyError, TypeError, ValueError) as error:  # a tampered field no command can carry
        return "illegal_event", f"no command makes it ({error})"
    if not decided or decided[0] != event:
        made = decided[0] if decided else None
        return "illegal_event", f"the command it records makes {_describe(made)} instead"
    if len(decided) == 1:
        auditor._after = decided.state  # noqa: SLF001 - the auditor's own helper
    return None


def _refused(state: TableState, event: Event, violation: RuleViolation) -> Problem:
    if isinstance(event, CardPlayed):
        rnd = state.round
        trick = f" on trick {rnd.trick.number}" if rnd is not None else ""
        return "illegal_play", f"seat {event.seat} played {event.card}{trick}: {violation.code} ({violation.detail})"
    return "illegal_event", f"{violation.code}: {violation.detail}"


def _describe(event: Event | None) -> str:
    return "nothing" if event is None else f"{event.type} {_fields_of(event)}"


def _fields_of(event: Event) -> dict[str, Any]:
    return {name: getattr(event, name) for name in event.__dataclass_fields__}


def _command_of(event: Event) -> do.Command | None:
    """The command whose decision `event` is the first event of (None: its fields are withheld)."""
    if isinstance(event, TableCreated):
        return do.CreateTable(event.name, event.options)
    if isinstance(event, (PlayerSeated, SpectatorJoined)):
        return do.Join(event.name)
    if isinstance(event, BotSeated):
        return do.SeatBots(0, (event.seat,), event.level)
    if isinstance(event, PreferencesChanged):
        return do.ChangePreferences(event.seat, event.spectator, event.name, event.deck_design)
    if isinstance(event, PassChosen):
        return None if event.cards is None else do.ChoosePass(event.seat, tuple(event.cards))
    if isinstance(event, CardPlayed):
        return do.PlayCard(event.seat, event.card)
    if isinstance(event, RevokeAccused):
        return do.Accuse(event.seat, event.accused)
    if isinstance(event, MoonChosen):
        return do.ChooseMoon(event.seat, event.choice)
    if isinstance(event, Resigned):
        return do.Resign(event.seat)
    if isinstance(event, MatchAbandoned):
        return do.Abandon(event.seat)
    if isinstance(event, MatchStarted) and event.requested_by is not None:
        return do.Rematch(event.requested_by)
    raise TypeError(f"{event.type} is no command's first event")


# -- the table's own follow-ups, and the deal (checked apart) ----------------------------


def _match_started(auditor: StreamAuditor, state: TableState, event: MatchStarted, at: datetime) -> Problem:
    if event.requested_by is not None:
        return _decided(auditor, state, event, at)  # a rematch
    # The first match starts by itself when the last seat is filled.
    if state.match is not None:
        return "illegal_event", f"match {event.match} starts by itself after match {state.match.number}"
    if state.empty_seats:
        return "illegal_event", f"the match starts with empty seats {list(state.empty_seats)}"
    return None if event.match == 1 else ("illegal_event", f"the first match is numbered {event.match}")


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
    rules = state.options
    cards = [card for hand in hands for card in hand]  # type: ignore[union-attr]
    deck = rules.deck
    if len(hands) != rules.players or any(len(hand) != rules.hand_size for hand in hands) or len(cards) != len(deck) or set(cards) != set(deck):  # type: ignore[arg-type]
        players = {4: "four", 3: "three", 5: "five"}[rules.players]
        return "bad_deal", f"the {players} hands are not {rules.hand_size} cards each of one {len(deck)}-card deck"
    if any(tuple(hand) != sorted_cards(hand) for hand in hands):  # type: ignore[arg-type]
        return "bad_deal", "a hand is not sorted by suit C D H S, then rank"
    if not _SALT.match(event.salt):
        return "bad_deal", "the salt is not 64 lowercase hex digits"
    if not commitment_matches(event.commitment, hands, event.salt):  # type: ignore[arg-type]
        return "commitment_mismatch", f"match {event.match} round {event.round}: the hands and salt do not hash to the commitment {event.commitment}"
    return None


_CHECKS: dict[type[Event], Callable[[StreamAuditor, TableState, Any, datetime], Problem]] = {
    MatchStarted: _match_started,
    RoundDealt: _round_dealt,
}

"""What one viewer may see of a table: everything public, its own hand, nothing more.

`table_view` is the body of `GET /v1/tables/{id}` (without `table_id`, which
the service adds). Other seats' hands and passes that have not been exchanged
never appear here; the tests walk every string of every view to check it.
"""

from __future__ import annotations

from typing import Any

from .cards import sorted_cards
from .moves import legal_moves, playable
from .rule_set import as_plain
from .rule_set import MOON_CHOICES
from .state import Direction, Match, Options, Result, Round, TableState, Trick
from .viewers import Viewer
from .visibility import received_by


def table_view(state: TableState, viewer: Viewer) -> dict[str, Any]:
    match = state.match
    rnd = state.round if state.is_running else (match.round if match is not None else None)
    last_round = _last_round(match)
    return {
        "version": state.version,
        "status": state.status.value,
        "options": options_entry(state.options),
        "match": match.number if match is not None else None,
        "round": rnd.number if rnd is not None else (last_round.number if last_round is not None else None),
        "pass_direction": rnd.direction.value if rnd is not None else None,
        "hearts_broken": rnd.hearts_broken if rnd is not None else False,
        "seats": [_seat_entry(state, match, rnd, seat) for seat in state.options.seats],
        "teams": _teams_entry(state, match, rnd),
        "moon_choice": _moon_choice_entry(rnd) if state.is_running else None,
        "spectators": [{"spectator": s.number, "name": s.name} for s in state.spectators],
        "turn": state.turn,
        "awaiting": list(state.awaiting),
        "awaiting_since": state.awaiting_since,
        "trick": _trick_entry(rnd.trick, rnd.number) if rnd is not None and not rnd.is_passing else None,
        "last_trick": _last_trick(match, rnd),
        "history": [_history_entry(record) for record in match.history] if match is not None else [],
        "result": result_entry(match.result) if match is not None and match.result is not None else None,
        "deal_commitment": (rnd or last_round).commitment if (rnd or last_round) is not None else None,
        "you": _you(state, rnd, viewer),
        "updated_at": state.updated_at,
    }


def invitation_view(state: TableState) -> dict[str, Any]:
    """What the invite link shows before joining: the table's public face, no cards at all."""
    open_seats = len(state.empty_seats) if state.match is None else 0
    return {
        "status": state.status.value,
        "options": options_entry(state.options),
        "seats": [{"seat": seat, "name": info.name, "kind": info.kind.value} for seat, info in enumerate(state.seats)],
        "open_seats": open_seats,
        "joins_as": "player" if open_seats else "spectator",
    }


def options_entry(options: Options) -> dict[str, Any]:
    """The game and every option's resolved value."""
    return as_plain(options)


def _seat_entry(state: TableState, match: Match | None, rnd: Round | None, seat: int) -> dict[str, Any]:
    info = state.seats[seat]
    return {
        "seat": seat,
        "name": info.name,
        "kind": info.kind.value,
        "bot_level": info.bot_level,
        "score": match.scores[seat] if match is not None else 0,
        "round_points": rnd.taken[seat] if rnd is not None else 0,
        "tricks_taken": rnd.tricks_taken[seat] if rnd is not None else 0,
        "hand_size": len(rnd.hands[seat]) if rnd is not None else 0,
        "has_passed": rnd is not None and rnd.passes[seat] is not None,
    }


def _teams_entry(state: TableState, match: Match | None, rnd: Round | None) -> list[dict[str, Any]] | None:
    teams = state.options.teams
    if teams is None:
        return None
    return [
        {
            "seats": list(team),
            "score": sum(match.scores[seat] for seat in team) if match is not None else 0,
            "round_points": sum(rnd.taken[seat] for seat in team) if rnd is not None else 0,
        }
        for team in teams
    ]


def _moon_choice_entry(rnd: Round | None) -> dict[str, Any] | None:
    if rnd is None or rnd.moon_choice is None:
        return None
    return {"seat": rnd.moon_choice, "choices": list(MOON_CHOICES)}


def _trick_entry(trick: Trick, round_number: int) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "number": trick.number,
        "leader": trick.leader,
        "cards": [{"seat": seat, "card": card} for seat, card in trick.cards],
    }
    if trick.winner is not None:
        entry["winner"] = trick.winner
        entry["round"] = round_number
    return entry


def _last_round(match: Match | None) -> Round | None:
    if match is None or not match.history:
        return None
    return match.history[-1].round


def _last_trick(match: Match | None, rnd: Round | None) -> dict[str, Any] | None:
    """The last completed trick; at the start of a round, the previous round's last."""
    if rnd is not None and rnd.tricks:
        return _trick_entry(rnd.tricks[-1], rnd.number)
    last_round = _last_round(match)
    if last_round is not None and last_round.tricks:
        return _trick_entry(last_round.tricks[-1], last_round.number)
    return None


def _history_entry(record: Any) -> dict[str, Any]:
    accusation = record.accusation
    return {
        "round": record.round.number,
        "points": list(record.points),
        "moon": record.moon,
        "accusation": None
        if accusation is None
        else {
            "accuser": accusation.accuser,
            "accused": accusation.accused,
            "revoke_found": accusation.revoke_found,
            "penalized_seat": accusation.penalized_seat,
        },
        "scores": list(record.scores),
    }


def result_entry(result: Result) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "reason": result.reason.value,
        "winners": list(result.winners),
        "losers": list(result.losers),
        "standings": [{"seat": s.seat, "score": s.score, "rank": s.rank} for s in result.standings],
    }
    if result.teams is not None:  # with partnerships
        entry["teams"] = [{"seats": list(team.seats), "score": team.score, "rank": team.rank} for team in result.teams]
    return entry


def _you(state: TableState, rnd: Round | None, viewer: Viewer) -> dict[str, Any]:
    if viewer.seat is None:
        spectator = next((s for s in state.spectators if s.number == viewer.spectator), None)
        return {
            "role": "spectator",
            "seat": None,
            "spectator": viewer.spectator,
            "name": spectator.name if spectator is not None else None,
            "hand": [],
            "legal_moves": [],
            "playable": [],
            "pass": None,
            "deck_design": spectator.deck_design if spectator is not None else "classic",
        }
    seat = viewer.seat
    info = state.seats[seat]
    return {
        "role": "player",
        "seat": seat,
        "spectator": None,
        "name": info.name,
        "hand": list(sorted_cards(rnd.hands[seat])) if rnd is not None else [],
        "legal_moves": list(legal_moves(state, seat)),
        "playable": list(playable(state, seat)),
        "pass": _pass_entry(rnd, seat),
        "deck_design": info.deck_design,
    }


def _pass_entry(rnd: Round | None, seat: int) -> dict[str, Any] | None:
    if rnd is None or rnd.direction is Direction.NONE:
        return None
    given = rnd.passes[seat]
    # What arrives is known only after the exchange.
    received = received_by(rnd, seat)
    return {
        "direction": rnd.direction.value,
        "given": list(given) if given is not None else None,
        "received": list(sorted_cards(received)) if received is not None else None,
    }

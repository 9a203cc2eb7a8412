"""Sections 5, 7 and 9: when a match ends, who wins, and the final standings.

With partnerships the teams are what count: a team's score is the sum of its
seats' scores, the lower team total wins (both partners are winners), and a
seat's rank is its team's rank.
"""

from __future__ import annotations

from collections.abc import Sequence

from .state import EndReason, Options, Result, Standing, TeamStanding, Tie


def reached_target(scores: Sequence[int], options: Options) -> bool:
    # The match ends when at least one seat (or team) has reached or passed the target.
    return max(_sides(scores, options).values()) >= options.target_score


def lowest_seats(scores: Sequence[int], seats: Sequence[int]) -> tuple[int, ...]:
    low = min(scores[seat] for seat in seats)
    return tuple(seat for seat in seats if scores[seat] == low)


def target_result(scores: Sequence[int], options: Options) -> Result | None:
    """The result after a completed round, or None while the match goes on."""
    if not reached_target(scores, options):
        return None
    sides = _sides(scores, options)
    low = min(sides.values())
    winning = [side for side, total in sides.items() if total == low]
    # Tie `play_on`: keep playing rounds until one seat (team) alone holds the lowest score.
    if len(winning) > 1 and options.tie is Tie.PLAY_ON:
        return None
    # Tie `share`: every seat (team) tied on the lowest score wins.
    winners = tuple(sorted(seat for side in winning for seat in side))
    return _result(EndReason.TARGET, winners, (), scores, options)


def forfeit_result(scores: Sequence[int], losers: Sequence[int], reason: EndReason, options: Options | None = None) -> Result:
    """Resignation or abandonment: the losers lose; the lowest of the others win (ties share).

    With partnerships a losing seat loses for its team; when every team has a
    losing seat, nobody wins.
    """
    options = options if options is not None else Options()
    losing = tuple(sorted({seat for loser in losers for seat in options.team_of(loser)}))
    present = tuple(seat for seat in options.seats if seat not in losing)
    if not present:
        winners: tuple[int, ...] = ()
    elif options.teams is None:
        winners = lowest_seats(scores, present)
    else:
        sides = {side: total for side, total in _sides(scores, options).items() if side[0] in present}
        low = min(sides.values())
        winners = tuple(sorted(seat for side, total in sides.items() if total == low for seat in side))
    return _result(reason, winners, losing, scores, options)


def _sides(scores: Sequence[int], options: Options) -> dict[tuple[int, ...], int]:
    """Each side's total: the teams with partnerships, else every seat alone."""
    teams = options.teams or tuple((seat,) for seat in options.seats)
    return {team: sum(scores[seat] for seat in team) for team in teams}


def _result(reason: EndReason, winners: tuple[int, ...], losers: tuple[int, ...], scores: Sequence[int], options: Options) -> Result:
    if options.teams is None:
        return Result(reason, winners, losers, standings(scores, losers))
    sides = _sides(scores, options)
    teams = tuple(sides)
    ranked = standings([sides[team] for team in teams], [index for index, team in enumerate(teams) if team[0] in losers])
    team_rank = {teams[entry.seat]: entry.rank for entry in ranked}
    team_standings = tuple(TeamStanding(teams[entry.seat], entry.score, entry.rank) for entry in ranked)
    rank_of = {seat: team_rank[team] for team in teams for seat in team}
    seat_order = sorted(options.seats, key=lambda seat: (rank_of[seat], scores[seat], seat))
    seat_standings = tuple(Standing(seat, scores[seat], rank_of[seat]) for seat in seat_order)
    return Result(reason, winners, losers, seat_standings, team_standings)


def standings(scores: Sequence[int], losers: Sequence[int]) -> tuple[Standing, ...]:
    """Ascending score with competition ranking (1, 1, 3, 4); losers rank after all others."""
    ordered = sorted(range(len(scores)), key=lambda seat: (seat in losers, scores[seat], seat))
    table: list[Standing] = []
    for position, seat in enumerate(ordered, start=1):
        previous = table[-1] if table else None
        tied = (
            previous is not None
            and scores[previous.seat] == scores[seat]
            and (previous.seat in losers) == (seat in losers)
        )
        table.append(Standing(seat, scores[seat], previous.rank if tied else position))
    return tuple(table)

"""Section 5 and 7: when a match ends, who wins, and the final standings."""

from __future__ import annotations

from collections.abc import Sequence

from .state import EndReason, Options, Result, Standing, Tie


def reached_target(scores: Sequence[int], options: Options) -> bool:
    # The match ends when at least one seat has reached or passed the target.
    return max(scores) >= options.target_score


def lowest_seats(scores: Sequence[int], seats: Sequence[int]) -> tuple[int, ...]:
    low = min(scores[seat] for seat in seats)
    return tuple(seat for seat in seats if scores[seat] == low)


def target_result(scores: Sequence[int], options: Options) -> Result | None:
    """The result after a completed round, or None while the match goes on."""
    if not reached_target(scores, options):
        return None
    winners = lowest_seats(scores, range(4))
    # Tie `play_on`: keep playing rounds until one seat alone holds the lowest score.
    if len(winners) > 1 and options.tie is Tie.PLAY_ON:
        return None
    # Tie `share`: every seat tied on the lowest score wins.
    return Result(EndReason.TARGET, winners, (), standings(scores, ()))


def forfeit_result(scores: Sequence[int], losers: Sequence[int], reason: EndReason) -> Result:
    """Resignation or abandonment: the losers lose; the lowest of the others win (ties share)."""
    present = tuple(seat for seat in range(4) if seat not in losers)
    return Result(reason, lowest_seats(scores, present), tuple(sorted(losers)), standings(scores, losers))


def standings(scores: Sequence[int], losers: Sequence[int]) -> tuple[Standing, ...]:
    """Ascending score with competition ranking (1, 1, 3, 4); losers rank after all others."""
    ordered = sorted(range(4), key=lambda seat: (seat in losers, scores[seat], seat))
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

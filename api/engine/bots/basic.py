"""The basic bot: a fast rule-based player.

Passing: the dangerous spades (QS, and AS/KS when short of low spades to
protect them), then high hearts, then high cards of short suits (to make a
void). Playing: lead low, flush the queen with low spades while she is out,
duck under the trick's highest card, shed the queen and hearts when void, and
stop a moon by taking points away from a seat that has taken all of them.

The play rule itself is `sim.basic_play`, shared with the strong bot's
rollouts; this module reads a `BotView` into masks for it.
"""

from __future__ import annotations

import random

from ..cards import Card, rank_value, sorted_cards
from ..rule_set import MOON_CHOICES
from ..state import Trick
from . import sim
from .view import BotView

# Passing scores: higher passes first.
_KEEP = -10


def pass_score(card: Card, hand: tuple[Card, ...] | list[Card]) -> int:
    suit = card[1]
    rank = rank_value(card) - 2  # 0..12
    low_spades = sum(1 for other in hand if other[1] == "S" and rank_value(other) < 12)
    if card == "QS":
        return 100 if low_spades < 4 else _KEEP
    if card in ("AS", "KS"):
        return 90 + rank if low_spades < 3 else rank - 6
    if suit == "S":
        return _KEEP  # low spades protect against the queen
    if suit == "H":
        return rank + (30 if rank >= 9 else 0)
    length = sum(1 for other in hand if other[1] == suit)
    return rank + (6 if length <= 3 else 0)


def choose_pass(view: BotView, rng: random.Random) -> tuple[Card, ...]:
    hand = view.legal
    ranked = sorted(hand, key=lambda card: (-pass_score(card, hand), sim.CARD_INDEX[card]))
    return sorted_cards(ranked[:3])


def played_mask(view: BotView) -> int:
    mask = 0
    for trick in view.tricks:
        for _, card in trick.cards:
            mask |= sim.CARD_BIT[card]
    for _, card in view.trick.cards:
        mask |= sim.CARD_BIT[card]
    return mask


def trick_state(trick: Trick) -> tuple[int, int, int, int, int]:
    """(count, led suit, winning index, winning seat, points) of a trick on the table."""
    count = len(trick.cards)
    led = win_index = win_seat = -1
    points = 0
    for seat, card in trick.cards:
        index = sim.CARD_INDEX[card]
        suit = index // 13
        if led < 0:
            led = suit
        if suit == led and index > win_index:
            win_index, win_seat = index, seat
        points += sim.points_of_mask(1 << index)
    return count, led, win_index, win_seat, points


def choose_play(view: BotView, rng: random.Random) -> Card:
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    count, led, win_index, win_seat, points = trick_state(view.trick)
    index = sim.basic_play(
        view.seat,
        sim.mask_of(view.hand),
        sim.mask_of(legal),
        count,
        led,
        win_index,
        win_seat,
        points,
        view.trick.number,
        played_mask(view),
        view.taken,
    )
    card = sim.DECK_CARD[index]
    return card if card in legal else legal[0]  # never anything but a legal move


def choose_moon(view: BotView) -> str:
    """How to be paid for a moon: whichever leaves this seat best placed, `others_score` on equal footing.

    Best placed: the match ending with this seat's side winning, then the
    match going on, then the match ending with a loss; then the side's rank;
    then its margin over the best other side. (The bonuses for JD and clean
    hands fall alike under both choices.)
    """
    rules = view.rules
    value = rules.scoring.moon_value
    mine = rules.team_of(view.seat)
    sides = rules.teams or tuple((seat,) for seat in rules.seats)
    best: tuple[tuple[int, int, int], str] | None = None
    for choice in MOON_CHOICES:  # others_score first: it wins ties
        scores = list(view.scores)
        for seat in rules.seats:
            if choice == "others_score" and seat not in mine:
                scores[seat] += value
            elif choice == "shooter_subtracts" and seat == view.seat:
                scores[seat] -= value
        totals = {side: sum(scores[seat] for seat in side) for side in sides}
        own = totals[next(side for side in sides if view.seat in side)]
        others = [total for side, total in totals.items() if view.seat not in side]
        rank = 1 + sum(1 for total in others if total < own)
        ends = max(totals.values()) >= rules.target_score
        outcome = (0 if rank == 1 else 2) if ends else 1
        key = (outcome, rank, own - min(others))
        if best is None or key < best[0]:
            best = (key, choice)
    assert best is not None
    return best[1]

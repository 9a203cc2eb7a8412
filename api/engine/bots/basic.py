"""The basic bot: a fast rule-based player, for every rule set.

Passing: the dangerous spades (QS, and AS/KS when short of low spades to
protect them), then high hearts, then high cards of short suits (to make a
void); never a card that scores negative points (JD where it is -10).
Playing: lead low, flush the queen with low spades while she is out, duck
under the trick's highest card, shed the queen and then the costliest point
cards of the game when void (never JD), take JD home when last to play, and
stop a moon by taking points away from a seat (not a partner) that has taken
all of them.

The play rule itself is `sim.basic_play`, shared with the strong bot's
rollouts; this module reads a `BotView` into masks for it.
"""

from __future__ import annotations

import random

from ..cards import Card, rank_value, sorted_cards
from ..rule_set import CLASSIC, MOON_CHOICES, RuleSet
from ..state import Trick
from . import sim
from .view import BotView

# Passing scores: higher passes first.
_KEEP = -10


def pass_score(card: Card, hand: tuple[Card, ...] | list[Card], rules: RuleSet = CLASSIC) -> int:
    if rules.scoring.points.get(card, 0) < 0:
        return _KEEP  # a bonus card (JD's -10) is worth keeping
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
    ranked = sorted(hand, key=lambda card: (-pass_score(card, hand, view.rules), sim.CARD_INDEX[card]))
    return sorted_cards(ranked[:3])


def played_mask(view: BotView) -> int:
    mask = 0
    for trick in view.tricks:
        for _, card in trick.cards:
            mask |= sim.CARD_BIT[card]
    for _, card in view.trick.cards:
        mask |= sim.CARD_BIT[card]
    return mask


def won_masks(view: BotView) -> list[int]:
    """The cards each seat has taken in the completed tricks of the round."""
    won = [0] * view.rules.players
    for trick in view.tricks:
        assert trick.winner is not None
        for _, card in trick.cards:
            won[trick.winner] |= sim.CARD_BIT[card]
    return won


def trick_state(trick: Trick) -> tuple[int, int, int, int, int]:
    """(count, led suit, winning index, winning seat, the cards' mask) of a trick on the table."""
    count = len(trick.cards)
    led = win_index = win_seat = -1
    cards = 0
    for seat, card in trick.cards:
        index = sim.CARD_INDEX[card]
        suit = index // 13
        if led < 0:
            led = suit
        if suit == led and index > win_index:
            win_index, win_seat = index, seat
        cards |= 1 << index
    return count, led, win_index, win_seat, cards


def choose_play(view: BotView, rng: random.Random) -> Card:
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    rules = sim.rules_for(view.rules)
    count, led, win_index, win_seat, cards = trick_state(view.trick)
    taken = [sim.points_of_mask(won, rules) for won in won_masks(view)]
    index = sim.basic_play(
        view.seat,
        sim.mask_of(view.hand),
        sim.mask_of(legal),
        count,
        led,
        win_index,
        win_seat,
        cards,
        view.trick.number,
        played_mask(view),
        taken,
        rules,
    )
    card = sim.DECK_CARD[index]
    return card if card in legal else legal[0]  # never anything but a legal move


def choose_moon(view: BotView) -> str:
    """How to be paid for a moon: whichever leaves this seat best placed (`moon_choice`)."""
    return moon_choice(view.rules, view.scores, view.seat)


def moon_choice(rules: RuleSet, match_scores: tuple[int, ...], shooter: int) -> str:
    """How `shooter` takes its moon: whichever leaves it best placed, `others_score` on equal footing.

    Best placed: the match ending with this seat's side winning, then the
    match going on, then the match ending with a loss; then the side's rank;
    then its margin over the best other side. (The bonuses for JD and clean
    hands fall alike under both choices.)
    """
    value = rules.scoring.moon_value
    mine = rules.team_of(shooter)
    sides = rules.teams or tuple((seat,) for seat in rules.seats)
    best: tuple[tuple[int, int, int], str] | None = None
    for choice in MOON_CHOICES:  # others_score first: it wins ties
        scores = list(match_scores)
        for seat in rules.seats:
            if choice == "others_score" and seat not in mine:
                scores[seat] += value
            elif choice == "shooter_subtracts" and seat == shooter:
                scores[seat] -= value
        totals = {side: sum(scores[seat] for seat in side) for side in sides}
        own = totals[next(side for side in sides if shooter in side)]
        others = [total for side, total in totals.items() if shooter not in side]
        rank = 1 + sum(1 for total in others if total < own)
        ends = max(totals.values()) >= rules.target_score
        outcome = (0 if rank == 1 else 2) if ends else 1
        key = (outcome, rank, own - min(others))
        if best is None or key < best[0]:
            best = (key, choice)
    assert best is not None
    return best[1]

"""The basic bot: a fast rule-based player (to be sharpened by the bots issue)."""

from __future__ import annotations

import random

from ..cards import QUEEN_OF_SPADES, Card, points_of, rank_value
from .view import BotView


def choose_pass(view: BotView, rng: random.Random) -> tuple[Card, ...]:
    # Pass the most dangerous cards: the queen, high spades, then high cards.
    def danger(card: Card) -> tuple[int, int]:
        if card == QUEEN_OF_SPADES or card in ("KS", "AS"):
            return (2, rank_value(card))
        return (1 if card[1] == "H" else 0, rank_value(card))

    return tuple(sorted(view.legal, key=danger, reverse=True)[:3])


def choose_play(view: BotView, rng: random.Random) -> Card:
    legal = view.legal
    trick = view.trick
    if not trick.cards:
        return min(legal, key=rank_value)
    led = trick.cards[0][1][1]
    following = [card for card in legal if card[1] == led]
    if following:
        high = max(rank_value(card) for _, card in trick.cards if card[1] == led)
        under = [card for card in following if rank_value(card) < high]
        return max(under, key=rank_value) if under else min(following, key=rank_value)
    # Void in the led suit: shed the most points, then the highest card.
    return max(legal, key=lambda card: (points_of(card), rank_value(card)))

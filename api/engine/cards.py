"""Cards in the notation of the rulebook: rank then suit, two characters ("QS").

A card is kept as its two-character string: immutable, hashable, cheap, and
exactly what the API shows. This module holds everything that knows how the
string is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Card = str  # "2C" .. "AS"

RANKS = "23456789TJQKA"  # ace is high in every suit
SUITS = "CDHS"  # clubs, diamonds, hearts, spades: also the sorting order

CLUBS, DIAMONDS, HEARTS, SPADES = SUITS
TWO_OF_CLUBS: Card = "2C"
QUEEN_OF_SPADES: Card = "QS"

CARD_PATTERN = r"^[2-9TJQKA][CDHS]$"
_CARD_RE = re.compile(CARD_PATTERN)

DECK: tuple[Card, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
HEART_CARDS: frozenset[Card] = frozenset(card for card in DECK if card[1] == HEARTS)
POINT_CARDS: frozenset[Card] = HEART_CARDS | {QUEEN_OF_SPADES}

_RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}
_SORT_KEY = {card: index for index, card in enumerate(DECK)}


class InvalidCard(ValueError):
    """The text is not a card in the two-character notation."""


def parse_card(text: str) -> Card:
    if not isinstance(text, str) or not _CARD_RE.match(text):
        raise InvalidCard(f"{text!r} is not a card like '2C' or 'QS'")
    return text


def suit_of(card: Card) -> str:
    return card[1]


def rank_value(card: Card) -> int:
    """2 for a two, ..., 14 for an ace."""
    return _RANK_VALUE[card[0]]


def points_of(card: Card) -> int:
    # Each heart: 1 point. The queen of spades: 13. Every other card: 0.
    if card[1] == HEARTS:
        return 1
    if card == QUEEN_OF_SPADES:
        return 13
    return 0


def is_point_card(card: Card) -> bool:
    return card in POINT_CARDS


def sort_key(card: Card) -> int:
    return _SORT_KEY[card]


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """By suit C D H S, then rank 2..A (the order of every listed hand)."""
    return tuple(sorted(cards, key=_SORT_KEY.__getitem__))

"""The rules of Copas, one function per rule of RULES.md.

Everything here is a question about a round (`is_legal`, `has_suit`,
`can_lead_hearts`) or a derived fact (`pass_direction`, `trick_winner`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from . import errors
from .cards import HEART_CARDS, HEARTS, POINT_CARDS, RANKS, TWO_OF_CLUBS, Card, points_of
from .state import Direction, Round, Trick

_DIRECTIONS = (Direction.LEFT, Direction.RIGHT, Direction.ACROSS, Direction.NONE)
_OFFSET = {Direction.LEFT: 1, Direction.RIGHT: 3, Direction.ACROSS: 2, Direction.NONE: 0}
MOON_POINTS = 26
_RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}
_POINTS = {card: points_of(card) for card in POINT_CARDS}


# -- Section 2: passing three cards ---------------------------------------


def pass_direction(round_number: int) -> Direction:
    # Left, right, across, none, then left again: the cycle repeats every four rounds.
    return _DIRECTIONS[(round_number - 1) % 4]


def receiver_of(seat: int, direction: Direction) -> int:
    """The seat that receives what `seat` passes."""
    return (seat + _OFFSET[direction]) % 4


def giver_to(seat: int, direction: Direction) -> int:
    """The seat whose pass `seat` receives."""
    return (seat - _OFFSET[direction]) % 4


# -- Section 3: playing a trick --------------------------------------------


def has_suit(hand: Iterable[Card], suit: str) -> bool:
    return any(card[1] == suit for card in hand)


def holds_only_points(hand: Iterable[Card]) -> bool:
    return all(card in POINT_CARDS for card in hand)


def holds_only_hearts(hand: Iterable[Card]) -> bool:
    return all(card[1] == HEARTS for card in hand)


def can_lead_hearts(rnd: Round, hand: Collection[Card]) -> bool:
    # A heart may be led once hearts are broken, or from a hand of hearts alone.
    return rnd.hearts_broken or holds_only_hearts(hand)


def is_first_trick(rnd: Round) -> bool:
    return rnd.trick.number == 1


def play_violation(rnd: Round, seat: int, card: Card, *, revoke_allowed: bool = False) -> errors.RuleViolation | None:
    """The first rule that playing `card` would break, in the contract's order, or None."""
    hand = rnd.hands[seat]
    trick = rnd.trick
    if card not in hand:
        return errors.CardNotInHand(f"{card} is not in your hand")
    leading = not trick.cards
    # Trick 1: the holder of the two of clubs leads it.
    if leading and trick.number == 1 and card != TWO_OF_CLUBS:
        return errors.MustLeadTwoOfClubs("the first trick is led with 2C")
    # A seat holding the led suit must follow it (unless the table allows revokes).
    if not leading:
        led = trick.led_suit
        if card[1] != led and not revoke_allowed and has_suit(hand, led):
            return errors.MustFollowSuit(f"you hold {led} and must follow suit")
    # Trick 1: no points unless the hand holds nothing else.
    if trick.number == 1 and card in POINT_CARDS and not holds_only_points(hand):
        return errors.NoPointsOnFirstTrick(f"{card} is a point card and your hand holds other cards")
    # Hearts may not be led before they are broken, unless the hand holds only hearts.
    if leading and card[1] == HEARTS and not can_lead_hearts(rnd, hand):
        return errors.HeartsNotBroken("hearts are not broken and your hand holds other suits")
    return None


def is_legal(rnd: Round, seat: int, card: Card) -> bool:
    return play_violation(rnd, seat, card) is None


def is_revoke(rnd: Round, seat: int, card: Card) -> bool:
    """Not following the led suit while holding it."""
    led = rnd.trick.led_suit
    return led is not None and card[1] != led and has_suit(rnd.hands[seat], led)


def legal_plays(rnd: Round, seat: int) -> tuple[Card, ...]:
    """The cards `seat` may play now without breaking any rule (it must be its turn)."""
    hand = rnd.hands[seat]
    trick = rnd.trick
    first = trick.number == 1
    if not trick.cards:
        if first:
            return (TWO_OF_CLUBS,) if TWO_OF_CLUBS in hand else ()
        if can_lead_hearts(rnd, hand):
            return tuple(hand)
        return tuple(card for card in hand if card[1] != HEARTS)
    led = trick.cards[0][1][1]
    following = tuple(card for card in hand if card[1] == led)
    if following:
        return following
    if first:
        return tuple(card for card in hand if card not in POINT_CARDS) or tuple(hand)
    return tuple(hand)


def playable_cards(rnd: Round, seat: int, *, revoke_allowed: bool) -> tuple[Card, ...]:
    """The legal plays, plus the revoking cards when the table allows revokes."""
    if not revoke_allowed:
        return legal_plays(rnd, seat)
    return tuple(card for card in rnd.hands[seat] if play_violation(rnd, seat, card, revoke_allowed=True) is None)


def trick_winner(trick: Trick) -> int:
    # The highest card of the led suit wins; another suit never wins.
    cards = trick.cards
    led = cards[0][1][1]
    winner, best = cards[0][0], _RANK_VALUE[cards[0][1][0]]
    for seat, card in cards[1:]:
        if card[1] == led and _RANK_VALUE[card[0]] > best:
            winner, best = seat, _RANK_VALUE[card[0]]
    return winner


def trick_points(trick: Trick) -> int:
    # Each heart 1, the queen of spades 13.
    return sum(_POINTS.get(card, 0) for _, card in trick.cards)


def breaks_hearts(card: Card) -> bool:
    # Any heart breaks hearts; the queen of spades does not.
    return card in HEART_CARDS


# -- Section 4: scoring a round --------------------------------------------


def moon_shooter(taken: tuple[int, ...]) -> int | None:
    """The seat that took all 13 hearts and the queen of spades, if one did."""
    for seat, points in enumerate(taken):
        if points == MOON_POINTS:
            return seat
    return None


def round_points(taken: tuple[int, ...]) -> tuple[tuple[int, ...], int | None]:
    """The points added to the scores, and the moon shooter if any."""
    # Moon: the shooter scores 0 and each other seat 26.
    shooter = moon_shooter(taken)
    if shooter is None:
        return taken, None
    return tuple(0 if seat == shooter else MOON_POINTS for seat in range(4)), shooter


def accusation_points(penalized_seat: int) -> tuple[int, ...]:
    # An accusation ends the round: 26 to the revoker (or the false accuser), 0 to the others.
    return tuple(MOON_POINTS if seat == penalized_seat else 0 for seat in range(4))


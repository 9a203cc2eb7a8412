"""A compact, mutable simulator of one round, for the bots' own use.

The engine's frozen states are the truth but are too slow to play thousands
of rollouts from. Here a hand is an int bitmask over the 52 cards, bit
`suit * 13 + rank` (suits C D H S, ranks 2..A: the order of `cards.DECK`), so
"does the seat hold the led suit" is one AND. It implements exactly the play
rules of `api.engine.rules` (tests/bots checks it against the engine on
random positions); it knows nothing of passing, revokes or accusations, which
bots never do.

The basic policy's play rule lives here too (`basic_play`), written on masks,
so that the basic bot and the strong bot's rollouts are one and the same
player.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import DECK, Card
from ..rule_set import CLASSIC, RuleSet

DECK_CARD: tuple[Card, ...] = DECK
CARD_INDEX: dict[Card, int] = {card: index for index, card in enumerate(DECK)}
CARD_BIT: dict[Card, int] = {card: 1 << index for index, card in enumerate(DECK)}

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_MASK = tuple(0x1FFF << (13 * suit) for suit in range(4))
HEARTS_MASK = SUIT_MASK[HEARTS]
TWO_OF_CLUBS_BIT = 1  # 2C is card 0
QS_INDEX = 13 * SPADES + 10
QS_BIT = 1 << QS_INDEX
KS_BIT = 1 << (QS_INDEX + 1)
AS_BIT = 1 << (QS_INDEX + 2)
POINTS_MASK = HEARTS_MASK | QS_BIT
FULL_DECK = (1 << 52) - 1
LOW_SPADES = SUIT_MASK[SPADES] & (QS_BIT - 1)  # 2S..JS
MOON_POINTS = 26


def simulates(rules: RuleSet) -> bool:
    """Does this simulator play (and score) exactly the table's rules? Classic's, today."""
    return rules.players == 4 and rules.game == "classic" and all(
        getattr(rules, name) == getattr(CLASSIC, name) for name in _PLAY_OPTIONS
    )


_PLAY_OPTIONS = ("first_trick_points", "hearts_lead", "queen_breaks_hearts", "moon", "jack_of_diamonds", "clean_hand_bonus", "partnerships")


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= CARD_BIT[card]
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask in deck order (clubs first, 2 to A)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(DECK[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def low_index(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def high_index(mask: int) -> int:
    return mask.bit_length() - 1


def points_of_mask(mask: int) -> int:
    return (mask & HEARTS_MASK).bit_count() + (13 if mask & QS_BIT else 0)


def legal_mask(hand: int, count: int, led: int, trick_number: int, broken: bool) -> int:
    """The cards of `hand` that break no rule: `rules.legal_plays` on masks.

    `count` cards are on the trick so far, `led` is the led suit (when count > 0),
    `trick_number` runs 1..13.
    """
    if count == 0:
        if trick_number == 1:
            return hand & TWO_OF_CLUBS_BIT
        if broken or not hand & ~HEARTS_MASK:
            return hand
        return hand & ~HEARTS_MASK
    follow = hand & SUIT_MASK[led]
    if follow:
        return follow
    if trick_number == 1:
        return (hand & ~POINTS_MASK) or hand
    return hand


def moon_threat(seat: int, taken: list[int] | tuple[int, ...]) -> int:
    """Another seat that holds every point taken so far, when enough are gone to worry; else -1."""
    total = sum(taken)
    if total < 10:
        return -1
    for other in range(len(taken)):
        if taken[other] == total:
            return other if other != seat else -1
    return -1


def basic_play(
    seat: int,
    hand: int,
    legal: int,
    count: int,
    led: int,
    win_index: int,
    win_seat: int,
    trick_pts: int,
    trick_number: int,
    played: int,
    taken: list[int] | tuple[int, ...],
) -> int:
    """The basic player's card (an index), from what the seat may know.

    `played` is every card played this round (including the current trick),
    `taken` the points each seat has taken so far. Deterministic.
    """
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    if count == 0:
        return _basic_lead(hand, legal, played)
    threat = moon_threat(seat, taken)
    follow = legal & SUIT_MASK[led]
    if follow:
        if trick_number == 1:
            # No points can fall on trick 1: win it with the highest club to shed it.
            return high_index(follow)
        above = follow >> (win_index + 1) << (win_index + 1)
        if threat >= 0 and win_seat == threat and above and trick_pts:
            # Stop the moon: take this trick (and its points) away from the shooter.
            return high_index(above)
        below = follow & ((1 << win_index) - 1)
        if below:
            # Duck under the trick's highest card with the highest card that still ducks.
            return high_index(below)
        safe = follow & ~QS_BIT
        if count == 3:
            # Last to play and must win: shed the highest card, never the queen.
            return high_index(safe) if safe else QS_INDEX
        if led == SPADES and not played & QS_BIT and safe & ~(KS_BIT | AS_BIT) and not hand & QS_BIT:
            return low_index(safe & ~(KS_BIT | AS_BIT))
        return low_index(safe) if safe else QS_INDEX
    # Void in the led suit: discard.
    if threat >= 0 and win_seat == threat:
        harmless = legal & ~POINTS_MASK
        if harmless:
            return high_index(harmless)
    if legal & QS_BIT:
        return QS_INDEX
    if not played & QS_BIT:
        danger = legal & (AS_BIT | KS_BIT)
        if danger:
            return high_index(danger)
    hearts = legal & HEARTS_MASK
    if hearts:
        return high_index(hearts)
    return _highest_from_short_suit(legal)


def _highest_from_short_suit(legal: int) -> int:
    # The highest card; among equal ranks, from the shortest suit (to make a void).
    best = -1
    best_key = (-1, 0)
    for suit in range(4):
        cards = legal & SUIT_MASK[suit]
        if cards:
            index = high_index(cards)
            key = (index - 13 * suit, -cards.bit_count())
            if key > best_key:
                best_key = key
                best = index
    return best


def _basic_lead(hand: int, legal: int, played: int) -> int:
    queen_out = not played & QS_BIT and not hand & QS_BIT
    if queen_out:
        # Flush the queen: lead spades below it while someone else holds it.
        low_spades = legal & LOW_SPADES
        if low_spades:
            return high_index(low_spades)
    avoid = legal
    if hand & QS_BIT or queen_out:
        # Leading spades is dangerous with the queen (or the king and ace while she is out).
        avoid = legal & ~SUIT_MASK[SPADES]
    candidates = avoid or legal
    # The lowest card by rank; among equal ranks, from the shortest suit.
    best = -1
    best_key = (99, 99)
    for suit in range(4):
        cards = candidates & SUIT_MASK[suit]
        if cards:
            index = low_index(cards)
            key = (index - 13 * suit, (hand & SUIT_MASK[suit]).bit_count())
            if key < best_key:
                best_key = key
                best = index
    return best


def round_scores(taken: list[int]) -> list[int]:
    """The points the round adds: a moon gives 26 to each other seat."""
    for seat in range(4):
        if taken[seat] == MOON_POINTS:
            return [0 if other == seat else MOON_POINTS for other in range(4)]
    return list(taken)


def playout(
    hands: list[int],
    leader: int,
    trick: list[tuple[int, int]],
    trick_number: int,
    broken: bool,
    taken: list[int],
    played: int,
    first: int = -1,
) -> list[int]:
    """Play the round to its end with the basic player at every seat; the raw points taken.

    `hands` and `taken` are changed in place. `trick` holds the (seat, index)
    cards already on the current trick. When `first` is a card index, the
    next seat to act plays it instead of choosing.
    """
    count = len(trick)
    led = win_index = win_seat = -1
    trick_pts = 0
    if count:
        led = trick[0][1] // 13
        for seat, index in trick:
            if index // 13 == led and index > win_index:
                win_index, win_seat = index, seat
            trick_pts += 1 if index // 13 == HEARTS else (13 if index == QS_INDEX else 0)
    seat = (leader + count) % 4
    while trick_number <= 13:
        hand = hands[seat]
        if first >= 0:
            index = first
            first = -1
        else:
            legal = legal_mask(hand, count, led, trick_number, broken)
            index = basic_play(seat, hand, legal, count, led, win_index, win_seat, trick_pts, trick_number, played, taken)
        bit = 1 << index
        hands[seat] = hand ^ bit
        played |= bit
        suit = index // 13
        if count == 0:
            led, win_index, win_seat, trick_pts = suit, index, seat, 0
        elif suit == led and index > win_index:
            win_index, win_seat = index, seat
        if suit == HEARTS:
            trick_pts += 1
            broken = True
        elif index == QS_INDEX:
            trick_pts += 13
        count += 1
        if count == 4:
            taken[win_seat] += trick_pts
            trick_number += 1
            seat = win_seat
            count = 0
            led = -1
        else:
            seat = (seat + 1) % 4
    return taken


def trick_winner(trick: list[tuple[int, int]]) -> int:
    """The seat whose card wins a complete trick: the highest of the led suit."""
    led = trick[0][1] // 13
    best_seat, best = trick[0]
    for seat, index in trick[1:]:
        if index // 13 == led and index > best:
            best_seat, best = seat, index
    return best_seat

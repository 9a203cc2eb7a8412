"""A compact, mutable simulator of one round, for the bots' own use, under any rule set.

The engine's frozen states are the truth but are too slow to play thousands
of rollouts from. Here a hand is an int bitmask over the 52 cards, bit
`suit * 13 + rank` (suits C D H S, ranks 2..A: the order of `cards.DECK`), so
"does the seat hold the led suit" is one AND. It implements exactly the play
rules and the round scoring of `api.engine.rules` for the table's rule set
(tests/bots checks it against the engine on random positions of every game
and option); it knows nothing of passing, revokes or accusations, which bots
never do.

The rule set is read once into a `SimRules` (`rules_for`, cached): the seat
count, the deck, the opening card and the scoring as masks and per-card
points, so the hot loop reads plain ints. Two tallies are kept apart:
`taken` counts the positive points each seat took (a seat with all of them
shot the moon; it is also what the basic player watches), and `won` holds
each seat's taken cards where the scoring needs them (`keeps_won`: JD's
bonus, the clean-hand bonus); `round_scores` adds those and pays the moon.

The basic policy's play rule lives here too (`basic_play`), written on masks,
so that the basic bot and the strong bot's rollouts are one and the same
player.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..cards import DECK, QUEEN_OF_SPADES, Card
from ..rule_set import CLASSIC, RuleSet

DECK_CARD: tuple[Card, ...] = DECK
CARD_INDEX: dict[Card, int] = {card: index for index, card in enumerate(DECK)}
CARD_BIT: dict[Card, int] = {card: 1 << index for index, card in enumerate(DECK)}

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_MASK = tuple(0x1FFF << (13 * suit) for suit in range(4))
HEARTS_MASK = SUIT_MASK[HEARTS]
QS_INDEX = CARD_INDEX[QUEEN_OF_SPADES]
QS_BIT = 1 << QS_INDEX
KS_BIT = CARD_BIT["KS"]
AS_BIT = CARD_BIT["AS"]
LOW_SPADES = SUIT_MASK[SPADES] & (QS_BIT - 1)  # 2S..JS
MOON_ALARM = 10  # of classic's 26: enough points in one seat's hands to worry about a moon


@dataclass(frozen=True, slots=True)
class SimRules:
    """A rule set as the simulator reads it: masks and per-card points, built once (`rules_for`)."""

    players: int
    tricks: int  # the tricks of a round: the hand size
    deck: int  # the cards in play
    opening: int  # the bit of the card that opens trick 1; 0: the dealer's left leads any card
    first_trick_barred: bool  # no point cards on trick 1 (unless the hand holds nothing else)
    hearts_wait: bool  # hearts may not be led until broken
    breaks: int  # the cards whose play breaks hearts
    points: tuple[int, ...]  # per card index: its positive points (0 for the others)
    point_cards: int  # the cards scoring positive points: the moon's cards
    bonus: tuple[tuple[int, int], ...]  # (bit, points) of each card scoring negative points (JD)
    bonus_cards: int
    bonus_worth: int  # the most a bonus card is worth (10 for JD's -10)
    moon: str  # the moon rule
    moon_total: int  # the points of all the moon's cards: a seat that took them all shot the moon
    moon_value: int
    moon_alarm: int  # the points one seat must hold before the basic player fears a moon
    clean_hand_bonus: int
    sides: tuple[tuple[int, ...], ...]  # per seat: the seats of its side (its team, or itself)
    partner: tuple[int, ...]  # per seat: its partner, or -1
    guards: int  # AS and KS where they score nothing: dangerous to hold while QS is out
    shed_groups: tuple[int, ...]  # the point cards other than QS, grouped by their points, highest first
    all_points: tuple[int, ...]  # per card index: its points, bonus cards included
    keeps_won: bool  # whether the round's scores need each seat's taken cards (JD, clean hands)
    points_of: dict[int, int] = field(default_factory=dict, compare=False)  # a cache: point cards' mask -> points


@lru_cache(maxsize=64)
def rules_for(rule_set: RuleSet) -> SimRules:
    """The simulator's reading of a rule set (cached: built once per rule set)."""
    scoring = rule_set.scoring
    card_points = scoring.points
    all_points = tuple(card_points.get(card, 0) for card in DECK)
    points = tuple(max(0, value) for value in all_points)
    bonus = tuple((1 << index, value) for index, value in enumerate(all_points) if value < 0)
    opening = rule_set.opening_card
    by_value: dict[int, int] = {}
    for index, value in enumerate(points):
        if value and index != QS_INDEX:
            by_value[value] = by_value.get(value, 0) | 1 << index
    moon_total = scoring.moon_total
    breaks = HEARTS_MASK | (QS_BIT if rule_set.queen_breaks_hearts else 0)
    assert breaks & ~mask_of(scoring.moon_cards) == 0, "the cards that break hearts score in every game"
    return SimRules(
        players=rule_set.players,
        tricks=rule_set.hand_size,
        deck=mask_of(rule_set.deck),
        opening=CARD_BIT[opening] if opening is not None else 0,
        first_trick_barred=rule_set.trick_one_points_forbidden,
        hearts_wait=rule_set.hearts_wait_until_broken,
        breaks=breaks,
        points=points,
        point_cards=mask_of(scoring.moon_cards),
        bonus=bonus,
        bonus_cards=sum(bit for bit, _ in bonus),
        bonus_worth=max((-value for _, value in bonus), default=0),
        moon=rule_set.moon,
        moon_total=moon_total,
        moon_value=scoring.moon_value,
        moon_alarm=max(1, MOON_ALARM * moon_total // CLASSIC.scoring.moon_total),
        clean_hand_bonus=rule_set.clean_hand_bonus,
        sides=tuple(rule_set.team_of(seat) for seat in rule_set.seats),
        partner=tuple(next((other for other in rule_set.team_of(seat) if other != seat), -1) for seat in rule_set.seats),
        guards=(AS_BIT | KS_BIT) & ~mask_of(scoring.moon_cards),
        shed_groups=tuple(by_value[value] for value in sorted(by_value, reverse=True)),
        all_points=all_points,
        keeps_won=bool(bonus) or bool(rule_set.clean_hand_bonus),
    )


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


def points_of_mask(mask: int, rules: SimRules | None = None) -> int:
    """The positive points of the cards in `mask` (classic's when no rules are given)."""
    sim_rules = rules if rules is not None else rules_for(CLASSIC)
    points = sim_rules.points
    mask &= sim_rules.point_cards
    total = 0
    while mask:
        low = mask & -mask
        total += points[low.bit_length() - 1]
        mask ^= low
    return total


def legal_mask(hand: int, count: int, led: int, trick_number: int, broken: bool, rules: SimRules) -> int:
    """The cards of `hand` that break no rule: `rules.legal_plays` on masks.

    `count` cards are on the trick so far, `led` is the led suit (when count > 0),
    `trick_number` runs from 1.
    """
    if count == 0:
        if trick_number == 1:
            if rules.opening:
                return hand & rules.opening  # the opening club leads
            return _first_lead(hand, broken, rules)
        # Hearts may be led once broken, where the rule set lets them, or from a hand of hearts.
        if broken or not rules.hearts_wait or not hand & ~HEARTS_MASK:
            return hand
        return hand & ~HEARTS_MASK
    follow = hand & SUIT_MASK[led]
    if trick_number == 1 and rules.first_trick_barred:
        # Trick 1: no point cards unless the seat holds nothing else (following suit first).
        points = rules.point_cards
        if follow:
            return (follow & ~points) or follow
        return (hand & ~points) or hand
    return follow or hand


def _first_lead(hand: int, broken: bool, rules: SimRules) -> int:
    # The dealer's left leads trick 1 with any card the hearts and trick-1 rules allow.
    cards = hand
    if not (broken or not rules.hearts_wait or not hand & ~HEARTS_MASK):
        cards = hand & ~HEARTS_MASK
    if rules.first_trick_barred and hand & ~rules.point_cards:
        cards &= ~rules.point_cards
    return cards


def moon_threat(seat: int, taken: Sequence[int], least: int = MOON_ALARM, partner: int = -1) -> int:
    """Another seat (not a partner) that holds every point taken so far, once `least` are gone; else -1."""
    total = sum(taken)
    if total < least:
        return -1
    for other in range(len(taken)):
        if taken[other] == total:
            return other if other != seat and other != partner else -1
    return -1


def basic_play(
    seat: int,
    hand: int,
    legal: int,
    count: int,
    led: int,
    win_index: int,
    win_seat: int,
    trick_cards: int,
    trick_number: int,
    played: int,
    taken: Sequence[int],
    rules: SimRules,
) -> int:
    """The basic player's card (an index), from what the seat may know.

    `trick_cards` are the cards on the trick, `played` every card played this
    round (the current trick's included), `taken` the positive points each
    seat has taken so far. Deterministic.
    """
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    if count == 0:
        return _basic_lead(hand, legal, played)
    follow = legal & SUIT_MASK[led]
    if follow:
        if trick_number == 1 and rules.first_trick_barred:
            # No points can fall on trick 1: win it with the highest card to shed it.
            return high_index(follow)
        above = follow >> (win_index + 1) << (win_index + 1)
        last = count == rules.players - 1
        if last and above & rules.bonus_cards and points_of_mask(trick_cards, rules) < rules.bonus_worth:
            # Last to play: take a bonus card (JD) home when it wins more than the trick costs.
            return high_index(above & rules.bonus_cards)
        if above and trick_cards & rules.point_cards and win_seat == moon_threat(seat, taken, rules.moon_alarm, rules.partner[seat]) >= 0:
            # Stop the moon: take this trick (and its points) away from the shooter.
            return high_index(above)
        below = follow & ((1 << win_index) - 1)
        if below:
            # Duck under the trick's highest card with the highest card that still ducks (keeping JD).
            return high_index((below & ~rules.bonus_cards) or below)
        safe = follow & ~QS_BIT
        if last:
            # Last to play and must win: shed the highest card, never the queen.
            return high_index(safe) if safe else QS_INDEX
        if led == SPADES and not played & QS_BIT and safe & ~(KS_BIT | AS_BIT) and not hand & QS_BIT:
            return low_index(safe & ~(KS_BIT | AS_BIT))
        return low_index(safe) if safe else QS_INDEX
    # Void in the led suit: discard (never a bonus card, which would go to the trick's winner).
    bonus = rules.bonus_cards
    if win_seat == moon_threat(seat, taken, rules.moon_alarm, rules.partner[seat]) >= 0:
        harmless = legal & ~rules.point_cards & ~bonus
        if harmless:
            return high_index(harmless)
    if legal & QS_BIT:
        return QS_INDEX
    if not played & QS_BIT:
        danger = legal & rules.guards
        if danger:
            return high_index(danger)
    for group in rules.shed_groups:
        # The costliest point card: AS/KS of black_maria, then the hearts (spot_hearts: the highest).
        cards = legal & group
        if cards:
            return high_index(cards)
    return _highest_from_short_suit((legal & ~bonus) or legal)


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


def round_scores(rules: SimRules, taken: Sequence[int], won: Sequence[int], choices: Sequence[str] | None = None) -> list[int]:
    """The points the round adds (`rules.round_points` on masks).

    `taken` are the positive points each seat took, `won` the cards. Under
    `shooter_chooses`, `choices[seat]` is how that seat would be paid for a
    moon (others_score when not given).
    """
    moon_total = rules.moon_total
    for shooter in range(rules.players):
        if taken[shooter] == moon_total:
            paid = rules.moon
            if paid == "shooter_chooses":
                paid = choices[shooter] if choices is not None else "others_score"
            value = rules.moon_value
            if paid == "others_score":
                # Moon: the shooter (and its partner) 0, each other seat the moon value.
                side = rules.sides[shooter]
                scores = [0 if seat in side else value for seat in range(rules.players)]
            else:
                scores = [0] * rules.players
                scores[shooter] = -value
            break
    else:
        scores = list(taken)
    for bit, points in rules.bonus:
        # JD's -10 counts in every round, a moon round too.
        for seat in range(rules.players):
            if won[seat] & bit:
                scores[seat] += points
    clean = rules.clean_hand_bonus
    if clean:
        # A seat that took no trick scores the bonus.
        for seat in range(rules.players):
            if not won[seat]:
                scores[seat] += clean
    return scores


def playout(
    rules: SimRules,
    hands: list[int],
    leader: int,
    trick: Sequence[tuple[int, int]],
    trick_number: int,
    broken: bool,
    taken: list[int],
    won: list[int],
    played: int,
    first: int = -1,
) -> None:
    """Play the round to its end with the basic player at every seat.

    `hands`, `taken` (positive points per seat) and `won` (cards per seat) are
    changed in place. `trick` holds the (seat, index) cards already on the
    current trick. When `first` is a card index, the next seat to act plays
    it instead of choosing.
    """
    players = rules.players
    last_trick = rules.tricks
    points_of = rules.points_of  # the points of a trick's point cards, remembered by their mask
    point_cards = rules.point_cards
    breaks = rules.breaks  # point cards all (hearts, and QS where she breaks them)
    keeps_won = rules.keeps_won
    broken = broken or not rules.hearts_wait  # from here on: may hearts be led
    count = len(trick)
    led = win_index = win_seat = -1
    trick_mask = 0
    if count:
        led = trick[0][1] // 13
        for seat, index in trick:
            if index // 13 == led and index > win_index:
                win_index, win_seat = index, seat
            trick_mask |= 1 << index
    seat = (leader + count) % players
    while trick_number <= last_trick:
        hand = hands[seat]
        if first >= 0:
            index = first
            first = -1
        else:
            # `legal_mask`, inlined after trick 1 (the hot path: follow suit, or lead what hearts allow).
            if trick_number == 1:
                legal = legal_mask(hand, count, led, trick_number, broken, rules)
            elif count:
                legal = hand & SUIT_MASK[led] or hand
            elif broken or not hand & ~HEARTS_MASK:
                legal = hand
            else:
                legal = hand & ~HEARTS_MASK
            index = basic_play(seat, hand, legal, count, led, win_index, win_seat, trick_mask, trick_number, played, taken, rules)
        bit = 1 << index
        hands[seat] = hand ^ bit
        played |= bit
        suit = index // 13
        if count == 0:
            led, win_index, win_seat, trick_mask = suit, index, seat, bit
        else:
            trick_mask |= bit
            if suit == led and index > win_index:
                win_index, win_seat = index, seat
        count += 1
        if count == players:
            # The trick is complete: its winner takes its cards (and points); hearts may be broken now.
            if keeps_won:
                won[win_seat] |= trick_mask
            scoring = trick_mask & point_cards
            if scoring:
                if scoring & breaks:
                    broken = True
                trick_points = points_of.get(scoring)
                if trick_points is None:
                    trick_points = points_of[scoring] = points_of_mask(scoring, rules)
                taken[win_seat] += trick_points
            trick_number += 1
            seat = win_seat
            count = 0
            led = -1
        else:
            seat = (seat + 1) % players


def trick_winner(trick: list[tuple[int, int]]) -> int:
    """The seat whose card wins a complete trick: the highest of the led suit."""
    led = trick[0][1] // 13
    best_seat, best = trick[0]
    for seat, index in trick[1:]:
        if index // 13 == led and index > best:
            best_seat, best = seat, index
    return best_seat

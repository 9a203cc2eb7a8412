"""The rules of Copas, one function per rule of RULES.md, for every rule set.

Everything here is a question about a round (`is_legal`, `has_suit`,
`can_lead_hearts`) or a derived fact (`pass_direction`, `trick_winner`).
A round carries its rule set (`Round.rules`): the rules read the options
and the scoring from it, never a game's name.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from . import errors
from .cards import HEARTS, QUEEN_OF_SPADES, RANKS, Card
from .rule_set import CLASSIC, MOON_CHOICES, Direction, RuleSet
from .state import Round, Trick

_OFFSET = {
    Direction.LEFT: 1,
    Direction.RIGHT: -1,
    Direction.ACROSS: 2,
    Direction.LEFT2: 2,
    Direction.RIGHT2: -2,
    Direction.NONE: 0,
}
MOON_POINTS = CLASSIC.scoring.moon_value
_RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}


# -- Sections 1 and 9.1: seats, the deck, who opens ------------------------------


def dealer_of(round_number: int, rules: RuleSet) -> int:
    # The dealer of round r is seat (r-1) mod players (black_maria: its left leads trick 1).
    return (round_number - 1) % rules.players


def first_leader(hands: Iterable[Collection[Card]], round_number: int, rules: RuleSet) -> int:
    """Who leads trick 1: the holder of the opening card, or the seat left of the dealer."""
    opening = rules.opening_card
    if opening is None:
        return (dealer_of(round_number, rules) + 1) % rules.players
    for seat, hand in enumerate(hands):
        if opening in hand:
            return seat
    return 0


# -- Section 2: passing three cards ---------------------------------------


def pass_direction(round_number: int, rules: RuleSet = CLASSIC) -> Direction:
    # Classic with four players: left, right, across, none, then left again.
    cycle = rules.pass_cycle_directions
    return cycle[(round_number - 1) % len(cycle)]


def receiver_of(seat: int, direction: Direction, players: int = 4) -> int:
    """The seat that receives what `seat` passes."""
    return (seat + _OFFSET[direction]) % players


def giver_to(seat: int, direction: Direction, players: int = 4) -> int:
    """The seat whose pass `seat` receives."""
    return (seat - _OFFSET[direction]) % players


# -- Section 3: playing a trick --------------------------------------------


def has_suit(hand: Iterable[Card], suit: str) -> bool:
    return any(card[1] == suit for card in hand)


def holds_only_points(hand: Iterable[Card], rules: RuleSet = CLASSIC) -> bool:
    # "Only point cards": only cards that score positive points in the game.
    point_cards = rules.scoring.moon_cards
    return all(card in point_cards for card in hand)


def holds_only_hearts(hand: Iterable[Card]) -> bool:
    return all(card[1] == HEARTS for card in hand)


def can_lead_hearts(rnd: Round, hand: Collection[Card]) -> bool:
    # A heart may be led once hearts are broken, or from a hand of hearts alone,
    # or at any time after trick 1 where the rule set says so.
    return rnd.hearts_broken or not rnd.rules.hearts_wait_until_broken or holds_only_hearts(hand)


def is_first_trick(rnd: Round) -> bool:
    return rnd.trick.number == 1


def play_violation(rnd: Round, seat: int, card: Card, *, revoke_allowed: bool = False) -> errors.RuleViolation | None:
    """The first rule that playing `card` would break, in the contract's order, or None."""
    rules = rnd.rules
    hand = rnd.hands[seat]
    trick = rnd.trick
    if card not in hand:
        return errors.CardNotInHand(f"{card} is not in your hand")
    leading = not trick.cards
    first = trick.number == 1
    # Trick 1: the holder of the opening club (2C; 3C with five players) leads it.
    opening = rules.opening_card
    if leading and first and opening is not None and card != opening:
        return errors.MustLeadTwoOfClubs(f"the first trick is led with {opening}")
    # A seat holding the led suit must follow it (unless the table allows revokes).
    if not leading:
        led = trick.led_suit
        if card[1] != led and not revoke_allowed and has_suit(hand, led):
            return errors.MustFollowSuit(f"you hold {led} and must follow suit")
    # Trick 1: no points unless the hand holds nothing else (where the rule set keeps it).
    # Following suit comes first: a point card of the led suit is barred only while
    # the seat holds another card of that suit.
    if first and rules.trick_one_points_forbidden and card in rules.scoring.moon_cards:
        point_cards = rules.scoring.moon_cards
        if not leading and card[1] == trick.led_suit:
            barred = any(other[1] == card[1] and other not in point_cards for other in hand)
        else:
            barred = not holds_only_points(hand, rules)
        if barred:
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
    rules = rnd.rules
    hand = rnd.hands[seat]
    trick = rnd.trick
    first = trick.number == 1
    points_barred = first and rules.trick_one_points_forbidden
    if not trick.cards:
        opening = rules.opening_card
        if first and opening is not None:
            return (opening,) if opening in hand else ()
        cards: Iterable[Card] = hand if can_lead_hearts(rnd, hand) else (card for card in hand if card[1] != HEARTS)
        if points_barred and not holds_only_points(hand, rules):
            point_cards = rules.scoring.moon_cards
            return tuple(card for card in cards if card not in point_cards)
        return tuple(cards)
    led = trick.cards[0][1][1]
    following = tuple(card for card in hand if card[1] == led)
    if following:
        if points_barred:  # trick 1 led with a suit that scores (possible where any card opens)
            point_cards = rules.scoring.moon_cards
            return tuple(card for card in following if card not in point_cards) or following
        return following
    if points_barred:
        point_cards = rules.scoring.moon_cards
        return tuple(card for card in hand if card not in point_cards) or tuple(hand)
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


def trick_points(trick: Trick, rules: RuleSet = CLASSIC) -> int:
    # Classic: each heart 1, the queen of spades 13; other games per their scoring (JD's -10 too).
    points = rules.scoring.points
    return sum(points.get(card, 0) for _, card in trick.cards)


def breaks_hearts(card: Card, rules: RuleSet = CLASSIC) -> bool:
    # Any heart breaks hearts; the queen of spades only where the rule set says so.
    return card[1] == HEARTS or (card == QUEEN_OF_SPADES and rules.queen_breaks_hearts)


# -- Sections 4 and 9: scoring a round --------------------------------------------


def moon_shooter(rnd: Round) -> int | None:
    """The seat that took every card scoring positive points in the game, if one did."""
    moon_cards = rnd.rules.scoring.moon_cards
    shooter = None
    for trick in rnd.tricks:
        if any(card in moon_cards for _, card in trick.cards):
            if shooter is not None and trick.winner != shooter:
                return None
            shooter = trick.winner
    if shooter is None:
        return None
    taken = {card for trick in rnd.tricks if trick.winner == shooter for _, card in trick.cards}
    return shooter if moon_cards <= taken else None


def needs_moon_choice(rnd: Round) -> bool:
    """Does the round wait for its shooter to choose how the moon is paid?"""
    return rnd.rules.moon == "shooter_chooses" and moon_shooter(rnd) is not None


def round_points(rnd: Round, choice: str | None = None) -> tuple[tuple[int, ...], int | None]:
    """The points a complete round adds to the scores, and the moon shooter if any.

    `choice` is the shooter's, under `moon: shooter_chooses` (one of MOON_CHOICES).
    """
    rules = rnd.rules
    scoring = rules.scoring
    shooter = moon_shooter(rnd)
    if shooter is None:
        points = list(rnd.taken)
    else:
        paid = choice if rules.moon == "shooter_chooses" else rules.moon
        assert paid in MOON_CHOICES, paid
        value = scoring.moon_value
        if paid == "others_score":
            # Moon: the shooter (and its partner) 0, each other seat the moon value.
            side = rules.team_of(shooter)
            points = [0 if seat in side else value for seat in rules.seats]
        else:
            points = [-value if seat == shooter else 0 for seat in rules.seats]
        # JD's -10 counts also in a moon round (JD is not needed for a moon).
        jack = scoring.points.get("JD", 0)
        if jack:
            for trick in rnd.tricks:
                if any(card == "JD" for _, card in trick.cards):
                    points[trick.winner] += jack  # type: ignore[index]
    bonus = rules.clean_hand_bonus
    if bonus:
        # A seat that took no trick scores the bonus, in every round (a moon round too).
        for seat in rules.seats:
            if rnd.tricks_taken[seat] == 0:
                points[seat] += bonus
    return tuple(points), shooter


def accusation_points(penalized_seat: int, rules: RuleSet = CLASSIC) -> tuple[int, ...]:
    # An accusation ends the round: the revoke penalty (the moon value) to the revoker
    # (or the false accuser), 0 to the others.
    penalty = rules.scoring.revoke_penalty
    return tuple(penalty if seat == penalized_seat else 0 for seat in rules.seats)

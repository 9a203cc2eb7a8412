"""The strong bot: determinized Monte Carlo search over what its seat may know, under any rule set.

For each decision it samples complete deals ("worlds") of the table's deck
consistent with everything public and everything this seat saw: the cards
played, the voids shown by failed follows (and the rarer "only point cards" /
"only hearts" facts of trick 1 and unbroken heart leads, where the rule set
has those rules), the cards it passed (the receiver holds them unless played)
and the hand sizes. In every world it plays each candidate card and finishes
the round with the basic player at every seat (`sim.playout`, a mutable
bitmask simulator that follows the rule set); the card whose rollouts give
its side (its team with partnerships, else itself) the lowest average round
score wins. Worlds are shared by all candidates, so the comparison is paired
and the noise of the deal mostly cancels. A moon is scored as the rule set
pays it; under `shooter_chooses` each seat is paid the way it would choose
(`basic.moon_choice`, from the match scores).

The budget is a number of simulated card plays (deterministic for a seeded
rng, used by the tournament): a rollout from trick 2 costs about four times
one from trick 11, so counting plays rather than rollouts keeps the time per
decision level through the round. The service adds a wall-clock limit.
Passing uses the basic heuristic.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..cards import Card
from ..rule_set import RuleSet
from ..rules import receiver_of
from ..state import Direction
from . import basic, sim
from .view import BotView

DEFAULT_BUDGET = 80_000  # simulated card plays per decision, split over the candidate cards
MAX_WORLDS = 500
SERVICE_SECONDS = 0.2  # the service's wall-clock limit per decision


@dataclass
class Knowledge:
    """What one seat knows about where the unseen cards are."""

    seat: int
    hand: int
    played: int
    known: list[int]  # cards each seat is known to hold (our passed cards, not yet played)
    allowed: list[int]  # cards each seat may still hold (voids and trick-1 facts)
    need: list[int]  # how many unknown cards each other seat holds
    unknown: list[int]  # the indices of the cards nobody is known to hold
    won: list[int]  # the cards each seat has taken in the completed tricks
    taken: list[int]  # their positive points


def knowledge(view: BotView) -> Knowledge:
    rules = sim.rules_for(view.rules)
    players = rules.players
    me = view.seat
    hand = sim.mask_of(view.hand)
    allowed = [rules.deck] * players
    counts = [0] * players
    played = 0
    broken = False
    tricks = list(view.tricks)
    if view.trick.cards:
        tricks.append(view.trick)
    points = rules.point_cards
    for trick in tricks:
        led = -1
        barred = trick.number == 1 and rules.first_trick_barred
        for position, (seat, card) in enumerate(trick.cards):
            index = sim.CARD_INDEX[card]
            bit = 1 << index
            suit = index // 13
            counts[seat] += 1
            played |= bit
            if position == 0:
                led = suit
                if suit == sim.HEARTS and not broken and rules.hearts_wait:
                    allowed[seat] &= sim.HEARTS_MASK  # led a heart unbroken: only hearts left
                if barred and bit & points and not bit & rules.opening:
                    allowed[seat] &= points  # led a point card on trick 1: nothing else left
            elif suit != led:
                allowed[seat] &= ~sim.SUIT_MASK[led]  # failed to follow: void in the led suit
                if barred and bit & points:
                    allowed[seat] &= points  # a point card on trick 1: nothing else left
            elif barred and bit & points:
                allowed[seat] &= ~(sim.SUIT_MASK[led] & ~points)  # followed with points: no other card of the suit
            if bit & rules.breaks:
                broken = True
    known = [0] * players
    if view.passed and view.direction is not Direction.NONE and view.phase == "play":
        known[receiver_of(me, view.direction, players)] = sim.mask_of(view.passed) & ~played
    need = [0] * players
    for seat in range(players):
        if seat != me:
            need[seat] = rules.tricks - counts[seat] - known[seat].bit_count()
    taken_known = hand | played
    for mask in known:
        taken_known |= mask
    unknown_mask = rules.deck & ~taken_known
    won = basic.won_masks(view)
    return Knowledge(
        me, hand, played, known, allowed, need, [i for i in range(52) if unknown_mask >> i & 1], won,
        [sim.points_of_mask(mask, rules) for mask in won],
    )


def sample_world(k: Knowledge, rng: random.Random) -> list[int]:
    """A hand per seat consistent with the knowledge (the seat's own hand as it is)."""
    others = [seat for seat in range(len(k.need)) if seat != k.seat]
    options = {index: [seat for seat in others if k.allowed[seat] >> index & 1] for index in k.unknown}
    for _ in range(40):
        order = list(k.unknown)
        rng.shuffle(order)
        order.sort(key=lambda index: len(options[index]))  # the most constrained cards first
        need = list(k.need)
        hands = list(k.known)
        for index in order:
            seats = [seat for seat in options[index] if need[seat] > 0]
            if not seats:
                break
            if len(seats) == 1:
                seat = seats[0]
            else:
                # A seat with more room is proportionally more likely to hold the card.
                pick = rng.random() * sum(need[seat] for seat in seats)
                for seat in seats:
                    pick -= need[seat]
                    if pick < 0:
                        break
            hands[seat] |= 1 << index
            need[seat] -= 1
        else:
            hands[k.seat] = k.hand
            return hands
    # Never expected: the constraints are those of a real deal. Deal ignoring them.
    order = list(k.unknown)
    rng.shuffle(order)
    hands = list(k.known)
    position = 0
    for seat in others:
        for index in order[position : position + k.need[seat]]:
            hands[seat] |= 1 << index
        position += k.need[seat]
    hands[k.seat] = k.hand
    return hands


def candidates(legal: int, hand: int, played: int, rules: sim.SimRules) -> list[int]:
    """The legal cards, one for each run of equivalent cards.

    Two cards of a suit are equivalent when they score the same points and
    every card between them is in this hand, already played or out of the
    deck (no other seat can tell them apart). So the queen of spades is never
    equivalent to her neighbours, nor, in spot_hearts, one heart to another.
    """
    out: list[int] = []
    previous = -2
    mine_or_gone = hand | played | ~rules.deck
    points = rules.all_points
    for index in range(52):
        if not legal >> index & 1:
            continue
        same_run = (
            previous >= 0
            and previous // 13 == index // 13
            and points[index] == points[previous]
            and all(mine_or_gone >> between & 1 for between in range(previous + 1, index))
        )
        if not same_run:
            out.append(index)
        previous = index
    return out


def moon_choices(rule_set: RuleSet, match_scores: tuple[int, ...]) -> tuple[str, ...] | None:
    """Under `shooter_chooses`, how each seat would take a moon; None under the other moon rules."""
    if rule_set.moon != "shooter_chooses":
        return None
    return tuple(basic.moon_choice(rule_set, match_scores, seat) for seat in rule_set.seats)


class StrongPolicy:
    """A search player with a budget of simulated plays and, optionally, a time limit."""

    def __init__(self, budget: int = DEFAULT_BUDGET, seconds: float | None = None) -> None:
        self.budget = budget
        self.seconds = seconds

    def choose_pass(self, view: BotView, rng: random.Random) -> tuple[Card, ...]:
        return basic.choose_pass(view, rng)

    def choose_play(self, view: BotView, rng: random.Random) -> Card:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        rules = sim.rules_for(view.rules)
        k = knowledge(view)
        moves = candidates(sim.mask_of(legal), k.hand, k.played, rules)
        if len(moves) == 1:
            return sim.DECK_CARD[moves[0]]
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        remaining = rules.deck.bit_count() - k.played.bit_count()
        worlds = min(MAX_WORLDS, max(2, self.budget // (len(moves) * remaining)))
        trick = view.trick
        on_table = [(seat, sim.CARD_INDEX[card]) for seat, card in trick.cards]
        me, mate = view.seat, rules.partner[view.seat]  # the objective: the side's round score
        choices = moon_choices(view.rules, view.scores)
        totals = [0] * len(moves)
        for done in range(worlds):
            if deadline is not None and done >= 2 and time.perf_counter() > deadline:
                break
            world = sample_world(k, rng)
            for position, move in enumerate(moves):
                taken, won = list(k.taken), list(k.won)
                sim.playout(rules, list(world), trick.leader, on_table, trick.number, view.hearts_broken, taken, won, k.played, move)
                scores = sim.round_scores(rules, taken, won, choices)
                totals[position] += scores[me] + scores[mate] if mate >= 0 else scores[me]
        best = min(range(len(moves)), key=lambda position: (totals[position], position))
        return sim.DECK_CARD[moves[best]]


_DEFAULT = StrongPolicy(seconds=SERVICE_SECONDS)


def choose_pass(view: BotView, rng: random.Random) -> tuple[Card, ...]:
    return _DEFAULT.choose_pass(view, rng)


def choose_play(view: BotView, rng: random.Random) -> Card:
    return _DEFAULT.choose_play(view, rng)

"""The strong bot: determinized Monte Carlo search over what its seat may know.

For each decision it samples complete deals ("worlds") consistent with
everything public and everything this seat saw: the cards played, the voids
shown by failed follows (and the rarer "only point cards" / "only hearts"
facts of trick 1 and unbroken heart leads), the cards it passed (the receiver
holds them unless played) and the hand sizes. In every world it plays each
candidate card and finishes the round with the basic player at all four
seats (`sim.playout`, a mutable bitmask simulator); the card with the lowest
average round score wins. Worlds are shared by all candidates, so the
comparison is paired and the noise of the deal mostly cancels.

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


def knowledge(view: BotView) -> Knowledge:
    me = view.seat
    hand = sim.mask_of(view.hand)
    allowed = [sim.FULL_DECK] * 4
    counts = [0, 0, 0, 0]
    played = 0
    broken = False
    tricks = list(view.tricks)
    if view.trick.cards:
        tricks.append(view.trick)
    for trick in tricks:
        led = -1
        for position, (seat, card) in enumerate(trick.cards):
            index = sim.CARD_INDEX[card]
            suit = index // 13
            counts[seat] += 1
            played |= 1 << index
            if position == 0:
                led = suit
                if suit == sim.HEARTS and not broken:
                    allowed[seat] &= sim.HEARTS_MASK  # led a heart unbroken: only hearts left
            elif suit != led:
                allowed[seat] &= ~sim.SUIT_MASK[led]  # failed to follow: void in the led suit
                if trick.number == 1 and (1 << index) & sim.POINTS_MASK:
                    allowed[seat] &= sim.POINTS_MASK  # a point card on trick 1: nothing else left
            if suit == sim.HEARTS:
                broken = True
    known = [0, 0, 0, 0]
    if view.passed and view.direction is not Direction.NONE and view.phase == "play":
        known[receiver_of(me, view.direction)] = sim.mask_of(view.passed) & ~played
    need = [0, 0, 0, 0]
    for seat in range(4):
        if seat != me:
            need[seat] = 13 - counts[seat] - known[seat].bit_count()
    taken_known = hand | played | known[0] | known[1] | known[2] | known[3]
    unknown_mask = sim.FULL_DECK & ~taken_known
    return Knowledge(me, hand, played, known, allowed, need, [i for i in range(52) if unknown_mask >> i & 1])


def sample_world(k: Knowledge, rng: random.Random) -> list[int]:
    """Four hands consistent with the knowledge (the seat's own hand as it is)."""
    others = [seat for seat in range(4) if seat != k.seat]
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


def candidates(legal: int, hand: int, played: int) -> list[int]:
    """The legal cards, one for each run of equivalent cards.

    Two cards of a suit are equivalent when every card between them is in
    this hand or already played (no other seat can tell them apart). The
    queen of spades is never equivalent to anything (she carries 13 points).
    """
    out: list[int] = []
    previous = -2
    mine_or_gone = hand | played
    for index in range(52):
        if not legal >> index & 1:
            continue
        same_run = (
            previous >= 0
            and previous // 13 == index // 13
            and index != sim.QS_INDEX
            and previous != sim.QS_INDEX
            and all(mine_or_gone >> between & 1 for between in range(previous + 1, index))
        )
        if not same_run:
            out.append(index)
        previous = index
    return out


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
        k = knowledge(view)
        moves = candidates(sim.mask_of(legal), k.hand, k.played)
        if len(moves) == 1:
            return sim.DECK_CARD[moves[0]]
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        remaining = 52 - k.played.bit_count()
        worlds = min(MAX_WORLDS, max(2, self.budget // (len(moves) * remaining)))
        trick = view.trick
        on_table = [(seat, sim.CARD_INDEX[card]) for seat, card in trick.cards]
        taken = list(view.taken)
        me = view.seat
        totals = [0] * len(moves)
        for done in range(worlds):
            if deadline is not None and done >= 2 and time.perf_counter() > deadline:
                break
            world = sample_world(k, rng)
            for position, move in enumerate(moves):
                final = sim.playout(
                    list(world), trick.leader, on_table, trick.number, view.hearts_broken, list(taken), k.played, move
                )
                totals[position] += sim.round_scores(final)[me]
        best = min(range(len(moves)), key=lambda position: (totals[position], position))
        return sim.DECK_CARD[moves[best]]


_DEFAULT = StrongPolicy(seconds=SERVICE_SECONDS)


def choose_pass(view: BotView, rng: random.Random) -> tuple[Card, ...]:
    return _DEFAULT.choose_pass(view, rng)


def choose_play(view: BotView, rng: random.Random) -> Card:
    return _DEFAULT.choose_play(view, rng)

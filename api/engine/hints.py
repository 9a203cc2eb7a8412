"""Hints: the move a good player would make now, and why, from 000's beginner tips.

The move is the strong bot's, chosen from the seat's own view (a `BotView`,
so a hint can never use a card the seat may not see). The reasons are facts
of the position, each checked here, never decoration:

  pass_high_spades  the pass gives away KS/AS and the hand has no low spade (2S-JS) to guard them
  make_a_void       the move leaves the hand without a suit that others can still lead,
                    or, already void, it discards a point card on a trick another seat takes
  duck_under        the card is the highest of the led suit in the hand that still loses
                    to the card winning the trick
  stop_the_moon     another seat holds every point taken so far, has played to this trick,
                    and this card keeps the trick (and its points) away from it
  count_spades      the queen of spades is still out and this spade is below her,
                    or she is gone and this high spade can no longer take her
and the rules that narrowed the choice, named by their refusal codes
(`must_lead_two_of_clubs`, `must_follow_suit`, `no_points_on_first_trick`,
`hearts_not_broken`).

Each reason is one sentence, in English (`en`) or Portuguese (`pt-BR`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from . import errors
from .bots import bot_decision, sim, strong
from .bots.view import BotView
from .commands import ChoosePass, PlayCard
from .cards import HEARTS, POINT_CARDS, QUEEN_OF_SPADES, SPADES, Card, rank_value, sorted_cards

LANGUAGES = ("en", "pt-BR")  # the first is the default
HINT_SECONDS = 0.15  # the search's wall-clock budget for one hint

TIPS = ("pass_high_spades", "make_a_void", "duck_under", "stop_the_moon", "count_spades")
RULES = (
    errors.MustLeadTwoOfClubs.code,
    errors.MustFollowSuit.code,
    errors.NoPointsOnFirstTrick.code,
    errors.HeartsNotBroken.code,
)
HIGH_SPADES = ("KS", "AS")


@dataclass(frozen=True)
class Reason:
    """Why a move is good (a tip of 000) or the only kind allowed (a rule), with the facts its sentence names."""

    tip: str  # a stable id: one of TIPS or RULES
    sentence: str  # which of the tip's sentences says it (see SENTENCES)
    facts: tuple[tuple[str, str], ...] = ()  # the values the sentence names (cards, suits, counts, seats)

    def text(self, language: str = LANGUAGES[0]) -> str:
        """The reason as one sentence in `language` (English for any language not in LANGUAGES)."""
        words = SENTENCES[self.tip, self.sentence]
        template = words.get(language, words[LANGUAGES[0]])
        facts = dict(self.facts)
        values = {name: _word(name, value, language) for name, value in facts.items()}
        return template.format(**values)


@dataclass(frozen=True)
class Hint:
    """The suggested move of a seat that must act, and its reasons."""

    action: str  # pass | play | moon
    cards: tuple[Card, ...]  # the three to pass or the one to play; () for a moon choice
    reasons: tuple[Reason, ...]
    choice: str | None = None  # how to be paid for a moon, when that is the action


def suggest(view: BotView, rng: random.Random, seconds: float | None = HINT_SECONDS, budget: int = strong.DEFAULT_BUDGET) -> Hint:
    """The strong bot's move for this seat, with the reasons that are true of it.

    The search stops at `budget` simulated card plays or after `seconds` of
    wall clock, whichever comes first (None: the budget alone, reproducibly).
    """
    command = bot_decision(view, "strong", rng, seconds=seconds, budget=budget)
    if isinstance(command, ChoosePass):
        cards = sorted_cards(command.cards)
        return Hint("pass", cards, pass_reasons(view, cards))
    if isinstance(command, PlayCard):
        return Hint("play", (command.card,), play_reasons(view, command.card))
    # A moon to be paid (a rule set where the shooter chooses): the bots' choice, no tip of 000 about it.
    return Hint("moon", (), (), choice=command.choice)


# -- passing ---------------------------------------------------------------------


def pass_reasons(view: BotView, cards: Iterable[Card]) -> tuple[Reason, ...]:
    """The tips that passing `cards` from this hand follows."""
    passed = frozenset(cards)
    hand = frozenset(view.hand)
    reasons: list[Reason] = []
    high = [card for card in HIGH_SPADES if card in passed]
    if high and not any(card[1] == SPADES and is_low_spade(card) for card in hand):
        reasons.append(Reason("pass_high_spades", "pass", (("cards", " ".join(high)),)))
    kept = hand - passed
    for suit in _VOIDABLE:
        given = sorted_cards(card for card in passed if card[1] == suit)
        if given and not any(card[1] == suit for card in kept):
            reasons.append(Reason("make_a_void", "pass", (("cards", " ".join(given)), ("suit", suit))))
    return tuple(reasons)


def is_low_spade(card: Card) -> bool:
    """A spade below the queen: one that can follow a spade lead without taking her."""
    return card[1] == SPADES and rank_value(card) < rank_value(QUEEN_OF_SPADES)


# -- playing ---------------------------------------------------------------------


def play_reasons(view: BotView, card: Card) -> tuple[Reason, ...]:
    """The rules that narrowed the choice and the tips that playing `card` follows."""
    return _rule_reasons(view) + _tip_reasons(view, card)


def _rule_reasons(view: BotView) -> tuple[Reason, ...]:
    trick = view.trick
    hand = view.hand
    led = trick.led_suit
    if led is None:
        if trick.number == 1:
            # Where the rule set fixes the opening card (2C, or 3C with five players), it is the only one legal.
            restricted = len(view.legal) == 1 and len(hand) > 1
            return (Reason(errors.MustLeadTwoOfClubs.code, "rule", (("card", view.legal[0]),)),) if restricted else ()
        if not view.hearts_broken and _holds(hand, HEARTS) and len(view.legal) < len(hand):
            return (Reason(errors.HeartsNotBroken.code, "rule"),)
        return ()
    if _holds(hand, led):
        if len(view.legal) < len(hand):
            return (Reason(errors.MustFollowSuit.code, "rule", (("suit", led),)),)
        return ()
    if trick.number == 1 and len(view.legal) < len(hand) and any(card in POINT_CARDS for card in hand):
        return (Reason(errors.NoPointsOnFirstTrick.code, "rule"),)
    return ()


def _tip_reasons(view: BotView, card: Card) -> tuple[Reason, ...]:
    trick = view.trick
    led = trick.led_suit
    played = _played(view)
    reasons: list[Reason] = []
    winner = _winning_card(view)
    # Stop the moon: the seat that took every point has played here and will not take this trick.
    threat = sim.moon_threat(view.seat, view.taken)
    if threat >= 0 and any(seat == threat for seat, _ in trick.cards):
        after = trick.cards + ((view.seat, card),)
        points = sum(sim.points_of_mask(sim.CARD_BIT[other]) for _, other in after)
        if points and _winner_of(after)[0] != threat:
            reasons.append(Reason("stop_the_moon", "play", (("card", card), ("seat", str(threat)))))
    # Duck under: the highest card of the led suit that still loses to the one winning the trick.
    if led is not None and winner is not None and card[1] == led:
        under = [own for own in view.hand if own[1] == led and rank_value(own) < rank_value(winner)]
        if under and card == max(under, key=rank_value):
            reasons.append(Reason("duck_under", "play", (("card", card), ("suit", led), ("winner", winner))))
    # Make a void: the last card of a suit others can still lead; or, void, a point card shed.
    rest = [own for own in view.hand if own != card]
    suit = card[1]
    if suit in _VOIDABLE and rest and not any(own[1] == suit for own in rest) and _still_out(suit, view.hand, played):
        reasons.append(Reason("make_a_void", "play", (("card", card), ("suit", suit))))
    if led is not None and suit != led and card in POINT_CARDS and trick.number > 1:
        reasons.append(Reason("make_a_void", "discard", (("card", card), ("suit", led))))
    # Count spades: where the queen is decides what a spade can cost.
    if suit == SPADES and (led is None or led == SPADES):
        gone = sum(1 for other in played if other[1] == SPADES)
        queen_out = QUEEN_OF_SPADES not in played and QUEEN_OF_SPADES not in view.hand
        if queen_out and is_low_spade(card):
            reasons.append(Reason("count_spades", "queen_out", (("card", card), ("count", str(gone)))))
        elif QUEEN_OF_SPADES in played and card in HIGH_SPADES:
            reasons.append(Reason("count_spades", "queen_gone", (("card", card), ("count", str(gone)))))
    return tuple(reasons)


_VOIDABLE = ("C", "D", "S")  # a void in hearts sheds nothing: hearts are what a void lets you discard


def _holds(hand: Iterable[Card], suit: str) -> bool:
    return any(card[1] == suit for card in hand)


def _played(view: BotView) -> frozenset[Card]:
    """Every card played this round, the trick on the table included (all played face up)."""
    cards = [card for trick in view.tricks for _, card in trick.cards]
    cards += [card for _, card in view.trick.cards]
    return frozenset(cards)


def _still_out(suit: str, hand: Iterable[Card], played: frozenset[Card]) -> bool:
    """Whether some card of `suit` is neither in this hand nor played: another seat may lead it."""
    mine = frozenset(hand)
    return any(card[1] == suit and card not in mine and card not in played for card in sim.DECK_CARD)


def _winner_of(cards: tuple[tuple[int, Card], ...]) -> tuple[int, Card]:
    """The (seat, card) winning a trick so far: the highest card of the led suit."""
    led = cards[0][1][1]
    return max((entry for entry in cards if entry[1][1] == led), key=lambda entry: rank_value(entry[1]))


def _winning_card(view: BotView) -> Card | None:
    return _winner_of(view.trick.cards)[1] if view.trick.cards else None


# -- the sentences ---------------------------------------------------------------

SENTENCES: dict[tuple[str, str], dict[str, str]] = {
    ("pass_high_spades", "pass"): {
        "en": "Pass {cards}: with no low spades to guard them, high spades are the cards that end up taking the queen of spades.",
        "pt-BR": "Passe {cards}: sem espadas baixas para protegê-las, as espadas altas são as cartas que costumam levar a dama de espadas.",
    },
    ("make_a_void", "pass"): {
        "en": "Passing {cards} leaves you no {suit}, so unless the pass brings some back you can discard hearts and the queen of spades when {suit} are led.",
        "pt-BR": "Passando {cards} você fica sem {suit} e, a menos que receba alguma na troca, pode descartar copas e a dama de espadas quando puxarem {suit}.",
    },
    ("make_a_void", "play"): {
        "en": "{card} is your last card in {suit}: without {suit} you can discard hearts and the queen of spades on tricks others take.",
        "pt-BR": "{card} é sua última carta de {suit}: sem {suit} você pode descartar copas e a dama de espadas nas mãos que os outros levam.",
    },
    ("make_a_void", "discard"): {
        "en": "You have no {suit}, so discard {card} on this trick: another player takes it.",
        "pt-BR": "Você está sem {suit}, então descarte {card} nesta mão: quem leva é outro jogador.",
    },
    ("duck_under", "play"): {
        "en": "Duck with {card}, your highest card in {suit} that still loses to {winner} on the table.",
        "pt-BR": "Fuja com {card}, sua carta de {suit} mais alta que ainda perde para {winner} na mesa.",
    },
    ("stop_the_moon", "play"): {
        "en": "Seat {seat} has taken every point so far, and with {card} this trick's points do not go to them: no moon this round.",
        "pt-BR": "O lugar {seat} levou todos os pontos até agora e, com {card}, os pontos desta mão não vão para ele: não haverá lua nesta rodada.",
    },
    ("count_spades", "queen_out"): {
        "en": "{count} spades are gone and the queen of spades is still out, but {card} is below her and cannot be the card that takes her.",
        "pt-BR": "Já saíram {count} espadas e a dama de espadas ainda não apareceu, mas {card} é menor que ela e não pode ser a carta que a leva.",
    },
    ("count_spades", "queen_gone"): {
        "en": "{count} spades are gone, the queen of spades among them, so {card} can no longer take her.",
        "pt-BR": "Já saíram {count} espadas, a dama de espadas entre elas, então {card} não pode mais levá-la.",
    },
    (errors.MustLeadTwoOfClubs.code, "rule"): {
        "en": "The first trick is led with {card}.",
        "pt-BR": "A primeira mão começa com {card}.",
    },
    (errors.MustFollowSuit.code, "rule"): {
        "en": "You hold {suit}, so you must follow suit.",
        "pt-BR": "Você tem {suit}, então precisa seguir o naipe.",
    },
    (errors.NoPointsOnFirstTrick.code, "rule"): {
        "en": "No point cards may be played on the first trick while you hold other cards.",
        "pt-BR": "Não se joga carta de ponto na primeira mão enquanto houver outras cartas na mão.",
    },
    (errors.HeartsNotBroken.code, "rule"): {
        "en": "Hearts are not broken yet, so you may not lead one.",
        "pt-BR": "As copas ainda não foram quebradas, então você não pode sair com copas.",
    },
}

_SUIT_NAMES = {
    "en": {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"},
    "pt-BR": {"C": "paus", "D": "ouros", "H": "copas", "S": "espadas"},
}


def _word(name: str, value: str, language: str) -> str:
    """A fact as its sentence says it: suits by name, everything else as it is."""
    if name == "suit":
        return _SUIT_NAMES.get(language, _SUIT_NAMES[LANGUAGES[0]])[value]
    return value

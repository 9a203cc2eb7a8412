"""Hints: the move a good player would make now, and why, from 000's beginner tips.

The move is the strong bot's, chosen from the seat's own view (a `BotView`,
so a hint can never use a card the seat may not see). The reasons are facts
of the position under the table's rule set (`view.rules`: its seats, its deck
and its scoring), each checked here, never decoration:

  pass_high_spades  the pass gives away spades above the queen (KS/AS) and the hand has no spade below
                    her to guard them, in a game where the queen scores
  make_a_void       the move leaves the hand without a suit that others can still lead (counted in the
                    table's deck), or, already void, it sheds a card that scores on a trick another
                    seat (with partnerships: the other side) is winning
  duck_under        the card is the highest of the led suit in the hand that still loses
                    to the card winning the trick
  stop_the_moon     a seat of another side holds every point card taken so far (a large enough share of
                    the game's moon to worry), has played to this trick, and this card keeps the
                    trick's point cards away from it
  count_spades      spades that score are still out and this spade is below all of them, or every
                    spade that scores is gone and this spade, scoring nothing itself, can no longer take one
  moon_choice       how to be paid for a moon (`moon: shooter_chooses`): the choice ends the match
                    with this side first, or keeps it going where the other would lose it, or leaves
                    this side better placed against the best of the others, or is as good as the other
and the rules that narrowed the choice, named by the engine's own refusal
codes for the cards it left out (`must_lead_two_of_clubs`, `must_follow_suit`,
`no_points_on_first_trick`, `hearts_not_broken`).

Each reason is one sentence, in English (`en`) or Portuguese (`pt-BR`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from . import errors
from .bots import bot_decision, strong
from .bots.view import BotView
from .cards import HEARTS, QUEEN_OF_SPADES, SPADES, SUITS, Card, rank_value, sorted_cards
from .commands import ChooseMoon, ChoosePass, PlayCard
from .results import target_result
from .rule_set import CLASSIC, MOON_CHOICES, RuleSet
from .rules import play_violation, round_points
from .state import Round

LANGUAGES = ("en", "pt-BR")  # the first is the default
HINT_SECONDS = 0.15  # the search's wall-clock budget for one hint

TIPS = ("pass_high_spades", "make_a_void", "duck_under", "stop_the_moon", "count_spades", "moon_choice")
RULES = (
    errors.MustLeadTwoOfClubs.code,
    errors.MustFollowSuit.code,
    errors.NoPointsOnFirstTrick.code,
    errors.HeartsNotBroken.code,
)
# 000's moon tip starts to worry at 10 of classic's 26 points: in any game, the same share of its moon's points.
MOON_WORRY = (10, CLASSIC.scoring.moon_total)


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
        values = {name: _word(name, value, language).format(**facts) for name, value in facts.items()}
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
    assert isinstance(command, ChooseMoon)
    return Hint("moon", (), moon_reasons(view, command.choice), choice=command.choice)


# -- the game's cards, from the rule set -----------------------------------------


def is_scoring(card: Card, rules: RuleSet) -> bool:
    """Does taking `card` cost points in this game (a card of its moon)?"""
    return card in rules.scoring.moon_cards


def suit_cards(suit: str, rules: RuleSet) -> tuple[Card, ...]:
    """The cards of `suit` in the table's deck (a 3- or 5-player deck has no 2D; a 5-player one no 2C)."""
    return tuple(card for card in rules.deck if card[1] == suit)


def voidable_suits(rules: RuleSet) -> tuple[str, ...]:
    # A suit whose every card scores (hearts) is what a void sheds, not a suit worth voiding.
    return tuple(suit for suit in SUITS if not all(is_scoring(card, rules) for card in suit_cards(suit, rules)))


def shed_by_void(suit: str, rules: RuleSet) -> str:
    """The cards that score outside `suit`, which a void in it lets the hand discard ("H" for all hearts)."""
    outside = [card for card in rules.deck if card[1] != suit and is_scoring(card, rules)]
    hearts = suit_cards(HEARTS, rules)
    if hearts and all(card in outside for card in hearts):
        outside = ["H"] + [card for card in outside if card[1] != HEARTS]
    return " ".join(outside)


def is_low_spade(card: Card) -> bool:
    """A spade below the queen: one that can follow a spade lead without taking her."""
    return card[1] == SPADES and rank_value(card) < rank_value(QUEEN_OF_SPADES)


# -- passing ---------------------------------------------------------------------


def pass_reasons(view: BotView, cards: Iterable[Card]) -> tuple[Reason, ...]:
    """The tips that passing `cards` from this hand follows."""
    rules = view.rules
    passed = frozenset(cards)
    hand = frozenset(view.hand)
    reasons: list[Reason] = []
    # Pass high spades: the spades above a queen that scores, when no spade below her guards them.
    high = [card for card in suit_cards(SPADES, rules) if card in passed and rank_value(card) > rank_value(QUEEN_OF_SPADES)]
    if high and is_scoring(QUEEN_OF_SPADES, rules) and not any(is_low_spade(card) for card in hand):
        points = rules.scoring.points
        scoring = [card for card in high if is_scoring(card, rules)]
        if scoring:  # black_maria: they are point cards themselves
            facts = (("cards", " ".join(high)), ("points", ", ".join(f"{card} {points[card]}" for card in scoring)))
            reasons.append(Reason("pass_high_spades", "pass_scoring", facts))
        else:
            reasons.append(Reason("pass_high_spades", "pass", (("cards", " ".join(high)),)))
    # Make a void: every card of a suit worth voiding goes in the pass.
    kept = hand - passed
    for suit in voidable_suits(rules):
        given = sorted_cards(card for card in passed if card[1] == suit)
        if given and not any(card[1] == suit for card in kept):
            facts = (("cards", " ".join(given)), ("suit", suit), ("shed", shed_by_void(suit, rules)))
            reasons.append(Reason("make_a_void", "pass", facts))
    return tuple(reasons)


# -- playing ---------------------------------------------------------------------


def play_reasons(view: BotView, card: Card) -> tuple[Reason, ...]:
    """The rules that narrowed the choice and the tips that playing `card` follows."""
    return _rule_reasons(view) + _tip_reasons(view, card)


def _rule_reasons(view: BotView) -> tuple[Reason, ...]:
    """The rules that left cards of the hand out, each named once, in the contract's order."""
    position = _position(view)
    legal = frozenset(view.legal)
    refused: set[str] = set()
    for card in view.hand:
        if card not in legal:
            violation = play_violation(position, view.seat, card)
            if violation is not None:
                refused.add(violation.code)
    facts = {
        errors.MustLeadTwoOfClubs.code: (("card", view.rules.opening_card or ""),),
        errors.MustFollowSuit.code: (("suit", view.trick.led_suit or ""),),
    }
    return tuple(Reason(code, "rule", facts.get(code, ())) for code in RULES if code in refused)


def _tip_reasons(view: BotView, card: Card) -> tuple[Reason, ...]:
    rules = view.rules
    trick = view.trick
    led = trick.led_suit
    played = _played(view)
    reasons: list[Reason] = []
    winner = _winner_of(trick.cards) if trick.cards else None
    # Stop the moon: the seat of another side that took every point card has played here and will not take this trick.
    threat = moon_threat(view)
    if threat is not None and any(seat == threat for seat, _ in trick.cards):
        after = trick.cards + ((view.seat, card),)
        if any(is_scoring(other, rules) for _, other in after) and _winner_of(after)[0] != threat:
            reasons.append(Reason("stop_the_moon", "play", (("card", card), ("seat", str(threat)))))
    # Duck under: the highest card of the led suit that still loses to the one winning the trick.
    if led is not None and winner is not None and card[1] == led:
        under = [own for own in view.hand if own[1] == led and rank_value(own) < rank_value(winner[1])]
        if under and card == max(under, key=rank_value):
            reasons.append(Reason("duck_under", "play", (("card", card), ("suit", led), ("winner", winner[1]))))
    # Make a void: the last card of a suit others can still lead; or, void, a scoring card shed on another side's trick.
    rest = [own for own in view.hand if own != card]
    suit = card[1]
    out = _still_out(suit, view, played)
    if suit in voidable_suits(rules) and rest and not any(own[1] == suit for own in rest) and out:
        facts = (("card", card), ("suit", suit), ("count", str(out)), ("shed", shed_by_void(suit, rules)))
        reasons.append(Reason("make_a_void", "play", facts))
    if led is not None and suit != led and is_scoring(card, rules) and winner is not None and winner[0] not in rules.team_of(view.seat):
        reasons.append(Reason("make_a_void", "discard", (("card", card), ("suit", led))))
    # Count spades: where the spades that score are decides what a spade can cost.
    if suit == SPADES and (led is None or led == SPADES):
        reason = _count_spades(view, card, played)
        if reason is not None:
            reasons.append(reason)
    return tuple(reasons)


def moon_threat(view: BotView) -> int | None:
    """A seat of another side holding every point card taken so far, once that is enough of the moon to worry.

    A partner's moon is no threat: it gives this side 0 and each opponent the moon value.
    """
    rules = view.rules
    takers = {trick.winner for trick in view.tricks if any(is_scoring(card, rules) for _, card in trick.cards)}
    if len(takers) != 1:
        return None
    (seat,) = takers
    if seat is None or seat in rules.team_of(view.seat):
        return None
    points = rules.scoring.points
    taken = sum(points[card] for trick in view.tricks if trick.winner == seat for _, card in trick.cards if is_scoring(card, rules))
    worry, of = MOON_WORRY
    return seat if taken * of >= worry * rules.scoring.moon_total else None


def _count_spades(view: BotView, card: Card, played: frozenset[Card]) -> Reason | None:
    rules = view.rules
    spades = suit_cards(SPADES, rules)
    hand = frozenset(view.hand)
    gone = sum(1 for other in spades if other in played)
    left = sum(1 for other in spades if other not in played and other not in hand)
    scoring = [other for other in spades if is_scoring(other, rules)]
    out = [other for other in scoring if other not in played and other not in hand]
    if is_scoring(card, rules) or not scoring:
        return None  # a spade that scores costs its own points; a game where no spade scores has nothing to count
    counts = (("card", card), ("count", str(gone)), ("left", str(left)))
    if out and all(rank_value(card) < rank_value(other) for other in out):
        if out == [QUEEN_OF_SPADES]:
            return Reason("count_spades", "queen_out", counts)
        return Reason("count_spades", "points_out", counts + (("spades", " ".join(out)),))
    if all(other in played for other in scoring) and any(rank_value(card) > rank_value(other) for other in scoring):
        if scoring == [QUEEN_OF_SPADES]:
            return Reason("count_spades", "queen_gone", counts)
        return Reason("count_spades", "points_gone", counts + (("spades", " ".join(scoring)),))
    return None


def _played(view: BotView) -> frozenset[Card]:
    """Every card played this round, the trick on the table included (all played face up)."""
    cards = [card for trick in view.tricks for _, card in trick.cards]
    cards += [card for _, card in view.trick.cards]
    return frozenset(cards)


def _still_out(suit: str, view: BotView, played: frozenset[Card]) -> int:
    """How many cards of `suit` in the table's deck are neither in this hand nor played: in other hands."""
    mine = frozenset(view.hand)
    return sum(1 for card in suit_cards(suit, view.rules) if card not in mine and card not in played)


def _winner_of(cards: tuple[tuple[int, Card], ...]) -> tuple[int, Card]:
    """The (seat, card) winning a trick so far: the highest card of the led suit."""
    led = cards[0][1][1]
    return max((entry for entry in cards if entry[1][1] == led), key=lambda entry: rank_value(entry[1]))


def _position(view: BotView) -> Round:
    """The round as this seat knows it, for the engine's own rules: its hand, the tricks, the rule set.

    The other hands are empty: nothing asked of it here reads them.
    """
    rules = view.rules
    hands = tuple(frozenset(view.hand) if seat == view.seat else frozenset() for seat in rules.seats)
    tricks_taken = tuple(sum(1 for trick in view.tricks if trick.winner == seat) for seat in rules.seats)
    return Round(
        number=0,
        direction=view.direction,
        dealt=tuple(() for _ in rules.seats),
        salt="",
        commitment="",
        hands=hands,
        passes=tuple(None for _ in rules.seats),
        exchanged=True,
        trick=view.trick,
        tricks=view.tricks,
        taken=view.taken,
        tricks_taken=tricks_taken,
        hearts_broken=view.hearts_broken,
        revokes=(),
        awaiting_since=datetime.min,
        rules=rules,
    )


# -- a moon's payment ------------------------------------------------------------

_OUTCOME_ORDER = ("won", "on", "lost")  # the match ending with this side first, going on, ending without it


def moon_reasons(view: BotView, choice: str) -> tuple[Reason, ...]:
    """Why being paid for the moon as `choice` leaves this seat better off (or no worse) than the other way."""
    rules = view.rules
    other = next(option for option in MOON_CHOICES if option != choice)
    outcome, own, best = _after_moon(view, choice)
    other_outcome, other_own, other_best = _after_moon(view, other)
    facts = (("choice", choice), ("value", str(rules.scoring.moon_value)), ("you", "side" if rules.teams else "seat"))
    if _OUTCOME_ORDER.index(outcome) < _OUTCOME_ORDER.index(other_outcome):
        if outcome == "won":
            # This way the match ends here, with this side lowest.
            return (Reason("moon_choice", "wins", facts + (("target", str(rules.target_score)), ("own", str(own)), ("best", str(best)))),)
        # The other way would end the match with another side first; this way it goes on.
        more = (("alternative", other), ("target", str(rules.target_score)), ("alt_own", str(other_own)), ("alt_best", str(other_best)))
        return (Reason("moon_choice", "goes_on", facts + more),)
    if outcome != other_outcome:
        return ()  # worse than the other way: nothing true to say for it
    by = (best - own) - (other_best - other_own)
    if by > 0:
        # The same outcome, and a wider lead (or a smaller gap) over the best of the others.
        more = (("alternative", other), ("own", str(own)), ("best", str(best)), ("by", str(by)))
        return (Reason("moon_choice", "better", facts + more),)
    if by == 0:
        return (Reason("moon_choice", "same", facts + (("alternative", other),)),)
    return ()


def _after_moon(view: BotView, choice: str) -> tuple[str, int, int]:
    """The match after this round paid as `choice`: its outcome for this seat's side, that side's total, the best other's."""
    rules = view.rules
    points, _ = round_points(_position(view), choice)
    after = tuple(score + added for score, added in zip(view.scores, points, strict=True))
    sides = rules.teams or tuple((seat,) for seat in rules.seats)
    mine = rules.team_of(view.seat)
    own = sum(after[seat] for seat in mine)
    best = min(sum(after[seat] for seat in side) for side in sides if side != mine)
    result = target_result(after, rules)
    outcome = "on" if result is None else "won" if view.seat in result.winners else "lost"
    return outcome, own, best


# -- the sentences ---------------------------------------------------------------

SENTENCES: dict[tuple[str, str], dict[str, str]] = {
    ("pass_high_spades", "pass"): {
        "en": "Pass {cards}: with no low spades to guard them, high spades are the cards that end up taking the queen of spades.",
        "pt-BR": "Passe {cards}: sem espadas baixas para protegê-las, as espadas altas são as cartas que costumam levar a dama de espadas.",
    },
    ("pass_high_spades", "pass_scoring"): {
        "en": "Pass {cards}: in this game they score themselves ({points}), and with no low spades to guard them they are also the cards that end up taking the queen of spades.",
        "pt-BR": "Passe {cards}: neste jogo elas mesmas valem pontos ({points}) e, sem espadas baixas para protegê-las, são também as cartas que costumam levar a dama de espadas.",
    },
    ("make_a_void", "pass"): {
        "en": "Passing {cards} leaves you no {suit}, so unless the pass brings some back you can discard {shed} when {suit} are led.",
        "pt-BR": "Passando {cards} você fica sem {suit} e, a menos que receba alguma na troca, pode descartar {shed} quando puxarem {suit}.",
    },
    ("make_a_void", "play"): {
        "en": "{card} is your last card in {suit} and {count} more are in other hands: without {suit} you can discard {shed} on tricks others take.",
        "pt-BR": "{card} é sua última carta de {suit} e há mais {count} nas outras mãos: sem {suit} você pode descartar {shed} nas mãos que os outros levam.",
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
        "en": "{count} spades are gone and {left} are in other hands, the queen of spades among them, but {card} is below her and cannot be the card that takes her.",
        "pt-BR": "Já saíram {count} espadas e há {left} nas outras mãos, a dama de espadas entre elas, mas {card} é menor que ela e não pode ser a carta que a leva.",
    },
    ("count_spades", "points_out"): {
        "en": "{count} spades are gone and {left} are in other hands, {spades} among them, but {card} is below those and cannot be the card that takes them.",
        "pt-BR": "Já saíram {count} espadas e há {left} nas outras mãos, entre elas {spades}, mas {card} é menor que essas e não pode ser a carta que as leva.",
    },
    ("count_spades", "queen_gone"): {
        "en": "{count} spades are gone, the queen of spades among them, so {card} can no longer take her.",
        "pt-BR": "Já saíram {count} espadas, a dama de espadas entre elas, então {card} não pode mais levá-la.",
    },
    ("count_spades", "points_gone"): {
        "en": "{count} spades are gone, every spade that scores ({spades}) among them, so {card} can no longer take one.",
        "pt-BR": "Já saíram {count} espadas, entre elas todas as que valem pontos ({spades}), então {card} não pode mais levar nenhuma.",
    },
    ("moon_choice", "wins"): {
        "en": "{choice}: the match then ends at the target of {target} with {you} lowest, {own} against {best}.",
        "pt-BR": "{choice}: assim a partida termina no alvo de {target} com {you} no menor placar, {own} contra {best}.",
    },
    ("moon_choice", "goes_on"): {
        "en": "{choice}: with {alternative} the match would end at the target of {target} with {you} behind, {alt_own} against {alt_best}.",
        "pt-BR": "{choice}: com {alternative} a partida terminaria no alvo de {target} com {you} atrás, {alt_own} contra {alt_best}.",
    },
    ("moon_choice", "better"): {
        "en": "{choice}: that leaves {you} at {own} against {best} for the best of the others, {by} points better placed than with {alternative}.",
        "pt-BR": "{choice}: assim {you} fica com {own} contra {best} do melhor dos outros, {by} pontos melhor do que com {alternative}.",
    },
    ("moon_choice", "same"): {
        "en": "{choice}, the usual payment: with {alternative} {you} would stay just as far from the best of the others, and the match would go the same way.",
        "pt-BR": "{choice}, o pagamento de costume: com {alternative} {you} ficaria à mesma distância do melhor dos outros, e a partida seguiria do mesmo jeito.",
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
_AND = {"en": "and", "pt-BR": "e"}
_WORDS: dict[str, dict[str, dict[str, str]]] = {
    "en": {
        "choice": {"others_score": "Have each opponent score the moon's {value}", "shooter_subtracts": "Take the moon's {value} off your own score"},
        "alternative": {"others_score": "each opponent scoring {value}", "shooter_subtracts": "{value} off your own score"},
        "you": {"seat": "you", "side": "your side"},
    },
    "pt-BR": {
        "choice": {"others_score": "Faça cada adversário marcar os {value} da lua", "shooter_subtracts": "Tire os {value} da lua do seu próprio placar"},
        "alternative": {"others_score": "cada adversário marcando {value}", "shooter_subtracts": "{value} a menos no seu placar"},
        "you": {"seat": "você", "side": "sua dupla"},
    },
}


def _word(name: str, value: str, language: str) -> str:
    """A fact as its sentence says it: suits by name, lists of cards joined, choices in words, the rest as it is."""
    language = language if language in LANGUAGES else LANGUAGES[0]
    if name == "suit":
        return _SUIT_NAMES[language][value]
    if name in ("shed", "spades"):  # lists of cards ("H": every heart)
        items = [_SUIT_NAMES[language][HEARTS] if item == "H" else item for item in value.split()]
        return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {_AND[language]} {items[-1]}"
    if name in _WORDS[language]:
        return _WORDS[language][name][value]
    return value

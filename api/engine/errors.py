"""Named refusals: every command the rules do not allow raises one of these.

Each carries the stable `code` of the HTTP contract; the web layer maps codes
to status codes in one place (`api.web.errors`).
"""

from __future__ import annotations

from typing import ClassVar


class RuleViolation(Exception):
    """A command that the current state of the table does not allow."""

    code: ClassVar[str] = "rule_violation"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail or (self.__doc__ or "").strip())

    @property
    def detail(self) -> str:
        return str(self)


class MatchNotRunning(RuleViolation):
    """There is no running match at this table."""

    code = "match_not_running"


class NoPassThisRound(RuleViolation):
    """Nobody passes cards in this round."""

    code = "no_pass_this_round"


class WrongPhase(RuleViolation):
    """The round is not in the phase this action belongs to."""

    code = "wrong_phase"


class NotYourTurn(RuleViolation):
    """Another seat must play now."""

    code = "not_your_turn"


class CardNotInHand(RuleViolation):
    """The card is not in this seat's hand."""

    code = "card_not_in_hand"


class PassAlreadySubmitted(RuleViolation):
    """This seat has already chosen its three cards for this round."""

    code = "pass_already_submitted"


class InvalidCommand(RuleViolation):
    """The command is malformed (the HTTP schema refuses it before the rules see it)."""

    code = "validation_error"


class InvalidPass(InvalidCommand):
    """A pass is exactly three distinct cards."""


class InvalidSeat(InvalidCommand):
    """The seat named is not a seat of this table (3, 4 or 5 seats, per its rule set)."""

    def __init__(self, detail: str, field: str) -> None:
        super().__init__(detail)
        self.field = field  # the request field that named it


class MustLeadTwoOfClubs(RuleViolation):
    """The first trick of a round is led with the two of clubs."""

    code = "must_lead_two_of_clubs"


class MustFollowSuit(RuleViolation):
    """A seat holding the led suit must play that suit."""

    code = "must_follow_suit"


class NoPointsOnFirstTrick(RuleViolation):
    """No heart and no queen of spades on the first trick, unless the hand holds nothing else."""

    code = "no_points_on_first_trick"


class HeartsNotBroken(RuleViolation):
    """Hearts may not be led before one has been played, unless the hand holds only hearts."""

    code = "hearts_not_broken"


class RevokeNotAllowed(RuleViolation):
    """This table prevents revokes, so there is nothing to accuse."""

    code = "revoke_not_allowed"


class CannotAccuseSelf(RuleViolation):
    """A seat accuses one of the other three seats."""

    code = "cannot_accuse_self"


class TableFull(RuleViolation):
    """Every seat of the table is taken."""

    code = "table_full"


class SeatTaken(RuleViolation):
    """That seat is already taken."""

    code = "seat_taken"


class MatchNotFinished(RuleViolation):
    """A rematch starts only after the match has finished."""

    code = "match_not_finished"


class NotStalled(RuleViolation):
    """The table has not waited long enough on anyone to end the match."""

    code = "not_stalled"


class NotAllowed(RuleViolation):
    """This seat may not take that action."""

    code = "forbidden"


class NotTheCreator(NotAllowed):
    """Only the creator of the table (seat 0) may seat bots."""


class AwaitedSeatCannotAbandon(NotAllowed):
    """A seat the table is waiting for cannot end the match as stalled."""


class BotsDoNotAccuse(NotAllowed):
    """Only a seated human player may accuse."""


class TableNotCreated(RuleViolation):
    """The table does not exist yet."""

    code = "not_found"


class TableAlreadyCreated(RuleViolation):
    """The table exists already."""

    code = "table_exists"

"""The rules of Copas as pure, replayable code: standard library only.

    decide(state, command, context) -> Decision     (events and the state after them, or a named RuleViolation)
    play_on(decision, context, chooser) -> Decision (the inline seats answer until none does)
    evolve(state, recorded) -> state                (never raises)
    replay(stream) -> state
    table_view(state, viewer), legal_moves(state, seat), playable(state, seat)
"""

from .decide import Context, apply, decide, deal
from .evolve import evolve, replay
from .moves import legal_moves, playable
from .state import TableState
from .viewers import Viewer
from .views import table_view

__all__ = [
    "Context",
    "TableState",
    "Viewer",
    "apply",
    "deal",
    "decide",
    "evolve",
    "legal_moves",
    "playable",
    "replay",
    "table_view",
]

"""The Copas table service.

`create_app()` (in `api.app`) builds the Flask application. This package
imports nothing heavy itself, so the engine, the bots, `copas audit` and
`copas tournament` start without loading Flask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(*args: Any, **kwargs: Any) -> Flask:
    from .app import create_app as build

    return build(*args, **kwargs)

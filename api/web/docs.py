"""Shared documentation decorators: security and the error responses an operation can give."""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any

from flask_smorest import Blueprint

BEARER = [{"bearerAuth": []}]


def errors(blp: Blueprint, *statuses: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Document the problem responses `statuses` (each a registered component)."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for status in statuses:
            func = blp.alt_response(status, response=http.HTTPStatus(status).name)(func)
        return func

    return decorate

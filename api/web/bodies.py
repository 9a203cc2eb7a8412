"""JSON request bodies, checked before any schema sees them.

Every body of this API is a flat object (at most a list inside it), so a
body nested deeper than MAX_DEPTH, with a key given twice, a number of more
than MAX_NUMBER_DIGITS digits or a NaN/Infinity literal is refused with 422,
before anything runs. (Python's decoder would otherwise raise RecursionError
past about a thousand levels, keep the last of two keys silently, and spend
quadratic time on a 4,000-digit integer.) Syntax errors are left to the
schema layer's own 400; the 64 KiB limit is Flask's MAX_CONTENT_LENGTH (413).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Flask, Response, request

from .errors import problem

MAX_DEPTH = 16
MAX_NUMBER_DIGITS = 40


class HostileBody(ValueError):
    """A JSON body that is well-formed but refused: too deep, a key twice, an absurd number."""


def install(app: Flask) -> None:
    @app.before_request
    def check_json_body() -> Response | None:
        if not request.is_json:
            return None
        try:
            check(request.get_data(cache=True))  # over MAX_CONTENT_LENGTH: 413 here
        except HostileBody as error:
            return problem(422, "validation_error", "the request does not match the schema", errors={"json": {"_schema": [str(error)]}})
        return None


def check(raw: bytes) -> None:
    """Raise HostileBody if `raw` is JSON this API refuses on sight; anything else passes."""
    try:
        text = raw.decode("utf-8")
        document = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_integer, parse_float=_number, parse_constant=_no_constant)
    except RecursionError:
        raise HostileBody(f"the body is nested deeper than {MAX_DEPTH} levels") from None
    except HostileBody:
        raise
    except ValueError:  # malformed JSON or bytes: the schema layer answers it
        return
    if depth(document) > MAX_DEPTH:
        raise HostileBody(f"the body is nested deeper than {MAX_DEPTH} levels")


def depth(document: Any) -> int:
    """How deeply lists and objects nest in a decoded JSON value (a scalar is 0), without recursion."""
    deepest, stack = 0, [(document, 1)]
    while stack:
        value, level = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise HostileBody(f"the key {twice!r} is given more than once")
    return document


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise HostileBody(f"a number has more than {MAX_NUMBER_DIGITS} digits")
    return int(digits)


def _number(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 10:
        raise HostileBody(f"a number has more than {MAX_NUMBER_DIGITS} digits")
    return float(text)


def _no_constant(name: str) -> float:
    raise HostileBody(f"{name} is not a JSON number")

"""Query-string and header arguments: documented and parsed by flask-smorest, skipped when absent.

Most polls carry no query string, and most moves neither `If-Match` nor
`Idempotency-Key`; webargs' parse of nothing (a MultiDict or a headers view, a
marshmallow load, the defaults) cost a `304` about a sixth of its CPU. When
the request carries none of a schema's arguments, they are what that parse
always gives: the schema's defaults, loaded once. Anything present goes
through webargs as before (a bad value is still a 422).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import marshmallow as ma
from flask import request
from flask_smorest import Blueprint

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def query_arguments(blp: Blueprint, schema: ma.Schema) -> Decorator:
    """`blp.arguments(schema, location="query")`, the same in the document and for any query string."""
    return _unless_absent(blp, schema, "query", lambda environ: not environ.get("QUERY_STRING"))


def header_arguments(blp: Blueprint, schema: ma.Schema) -> Decorator:
    """`blp.arguments(schema, location="headers")`, the same in the document and whenever one of its headers is sent."""
    keys = tuple("HTTP_" + (field.data_key or name).upper().replace("-", "_") for name, field in schema.fields.items())
    return _unless_absent(blp, schema, "headers", lambda environ: not any(key in environ for key in keys))


def _unless_absent(blp: Blueprint, schema: ma.Schema, location: str, absent: Callable[[dict[str, Any]], bool]) -> Decorator:
    defaults = schema.load({})

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        parsed = blp.arguments(schema, location=location)(func)

        @functools.wraps(parsed)  # carries flask-smorest's documentation (`_apidoc`) along
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if absent(request.environ):  # as webargs does: the arguments after the positional ones
                return func(*args, dict(defaults), **kwargs)
            return parsed(*args, **kwargs)

        return wrapper

    return decorate

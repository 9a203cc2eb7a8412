"""What the OpenAPI document says beyond the marshmallow schemas, so that generated clients are typed.

- `operation(blp, "playCard", errors.NotYourTurn, ...)` documents an operation: its
  `operationId`, its security, and for each status the problem `code`s it can
  answer, as an enum. The codes come from the refusal classes themselves
  (`RuleViolation`, `ServiceError`) and their status from `errors.status_for`,
  so no list of codes is written twice.
- `install(api)` adds the components that marshmallow cannot express: one enum
  component per closed set (`schemas.Choice`), the events as a discriminated
  union derived from the engine's event classes, and answers that extend
  another (a view plus a few fields) as `allOf` of that schema and their own.
- The interactive docs at `/v1/docs` are Swagger UI from the pinned
  `flask-swagger-ui` package, served by the service itself (no CDN).
"""

from __future__ import annotations

import http
import types
import typing
from collections.abc import Callable, Iterable
from datetime import datetime
from importlib.resources import files
from typing import Any, Union

import marshmallow as ma
from apispec.ext.marshmallow.common import make_schema_key
from flask import Flask, Response, send_from_directory
from flask_smorest import Api, Blueprint

from ..engine.errors import InvalidCommand, RuleViolation
from ..engine.events import EVENT_TYPES
from ..engine.rule_set import MOON_CHOICES
from ..engine.state import Options
from ..service.errors import NotFound, ServiceError, Unauthenticated
from ..store import codec
from . import schemas
from .errors import CODE_BY_STATUS, PROBLEM, problem_schema, status_for

BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
PUBLIC: list[dict[str, list[str]]] = []  # `security: []`: no token needed

# A refusal an operation may answer: a named refusal class, or an HTTP status whose code
# the web layer gives (`errors.CODE_BY_STATUS`: an oversized body, a rate limit).
Refusal = type[RuleViolation] | type[ServiceError] | int
SIGNED_IN: tuple[Refusal, ...] = (Unauthenticated, NotFound)  # every table resource
INVALID: Refusal = InvalidCommand  # the body, query or headers do not match the schema
TOO_LARGE: Refusal = 413
RATE_LIMITED: Refusal = 429
UNAVAILABLE: Refusal = 503  # the database is away for a moment: retry after Retry-After

SCHEMA_REF = "#/components/schemas/"
SWAGGER_UI_ASSETS = "/v1/docs/assets/"

HEADERS: dict[int, dict[str, Any]] = {
    401: {
        "WWW-Authenticate": {
            "description": 'Bearer realm="copas"; with error="invalid_token" when the token sent is unknown.',
            "schema": {"type": "string"},
        }
    },
    503: {"Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}},
    429: {
        "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}},
        "RateLimit": {"description": 'What is left of the limit: "default";r=REMAINING;t=SECONDS.', "schema": {"type": "string"}},
        "RateLimit-Policy": {"description": 'The limit: "default";q=BURST;w=SECONDS.', "schema": {"type": "string"}},
    },
}


def operation(
    blp: Blueprint, operation_id: str, *refusals: Refusal, public: bool = False, unavailable: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Document an operation: its id, its security and the problems (status, codes) it can answer.

    A table resource (not `public`) can also answer 401 and 404; every operation can answer 429,
    and 503 while the database is away (unless `unavailable` is False: it documents its own 503).
    """
    causes = (*(() if public else SIGNED_IN), *refusals, RATE_LIMITED, *((UNAVAILABLE,) if unavailable else ()))

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        documented = func
        for status, explained in sorted(problems_by_status(causes).items(), reverse=True):
            documented = blp.alt_response(
                status,
                schema=problem_schema(list(explained)),
                content_type=PROBLEM,
                description=_describe(status, explained),
                headers=HEADERS.get(status),
            )(documented)
        documented = blp.doc(operationId=operation_id, security=PUBLIC if public else BEARER)(documented)
        # alt_response only documents, but wraps the view once per status, and every layer
        # costs each request a call and a coroutine check: keep the documentation, not the layers.
        func._apidoc = documented._apidoc  # type: ignore[attr-defined]
        return func

    return decorate


def problems_by_status(causes: Iterable[Refusal]) -> dict[int, dict[str, list[str]]]:
    """{status: {code: [what each refusal with that code means]}}, in the order given."""
    result: dict[int, dict[str, list[str]]] = {}
    for cause in causes:
        if isinstance(cause, int):
            status, code, meaning = cause, CODE_BY_STATUS[cause], http.HTTPStatus(cause).description
        else:
            status, code, meaning = status_for(cause.code), cause.code, (cause.__doc__ or "").strip()
        meanings = result.setdefault(status, {}).setdefault(code, [])
        if meaning and meaning not in meanings:
            meanings.append(meaning)
    return result


def _describe(status: int, explained: dict[str, list[str]]) -> str:
    lines = [f"- `{code}`: {' Or: '.join(meanings)}" for code, meanings in explained.items()]
    return "\n".join([http.HTTPStatus(status).phrase, "", *lines])


# -- components ------------------------------------------------------------------------------


def install(api: Api) -> None:
    """Teach the document the closed sets, the event union and the extended answers."""
    spec, converter = api.spec, api.ma_plugin.converter
    converter.add_attribute_function(_choice_reference)
    for name, values in sorted(schemas.CHOICES.items()):
        spec.components.schema(name, {"type": "string", "enum": list(values), "example": values[0]})
    _document_events(api)
    for extended, base in EXTENSIONS:
        _document_extension(api, extended, base)


# Answers that are another schema plus a few fields of their own.
EXTENSIONS: tuple[tuple[type[ma.Schema], type[ma.Schema]], ...] = (
    (schemas.AccusationAnswerSchema, schemas.TableViewSchema),
    (schemas.PreferencesAnswerSchema, schemas.TableViewSchema),
    (schemas.CreateTableAnswerSchema, schemas.AdmissionSchema),
)


def _choice_reference(self: Any, field: ma.fields.Field, ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A `Choice` field is a $ref to its closed set's component (or that or null)."""
    if not isinstance(field, schemas.Choice):
        return {}
    for key in ("type", "enum"):
        ret.pop(key, None)
    reference = {"$ref": SCHEMA_REF + field.component}
    return {"anyOf": [reference, {"type": "null"}]} if field.allow_none else reference


def _component_name(schema: type[ma.Schema]) -> str:
    return schema.__name__.removesuffix("Schema")


def _own_schema(api: Api, name: str, schema: type[ma.Schema], component: dict[str, Any]) -> None:
    """Register `component` as the document of `schema` (which still serializes the answers)."""
    api.spec.components.schema(name, component)
    api.ma_plugin.converter.refs[make_schema_key(schema())] = name


def _document_extension(api: Api, extended: type[ma.Schema], base: type[ma.Schema]) -> None:
    converter = api.ma_plugin.converter
    reference = converter.resolve_nested_schema(base)
    own = {name: field for name, field in extended._declared_fields.items() if name not in base._declared_fields}
    properties = {field.data_key or name: converter.field2property(field) for name, field in own.items()}
    required = [field.data_key or name for name, field in own.items() if field.required]
    part: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        part["required"] = required
    component = {"allOf": [reference, part], "description": (extended.__doc__ or "").strip() or None}
    _own_schema(api, _component_name(extended), extended, {k: v for k, v in component.items() if v is not None})


# -- events: a discriminated union derived from the engine's event classes ---------------------

# Examples of event data fields, by name (a new field needs one: the document's tests say so).
EXAMPLES: dict[str, Any] = {
    "name": "Bruno",
    "options": {"target_score": 100, "revoke": "prevented", "tie": "share"},
    "spectator": 1,
    "level": "basic",
    "match": 1,
    "requested_by": None,
    "round": 1,
    "commitment": "9f2c" + "0" * 60,
    "hands": [None, ["2C", "7C", "KC", "3D", "9D", "QD", "4H", "8H", "JH", "AH", "5S", "QS", "AS"], None, None],
    "salt": None,
    "cards": ["QS", "AS", "AH"],
    "card": "2C",
    "accused": 3,
    "revoke_found": True,
    "penalized_seat": 3,
    "awaited": [2],
    "deck_design": "four-color",
    "choice": MOON_CHOICES[0],
}


def _json_schema(hint: Any) -> dict[str, Any]:
    """The JSON schema of a field of an event class, from its type."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        present = [arg for arg in args if arg is not type(None)]
        inner = _json_schema(present[0]) if len(present) == 1 else {"anyOf": [_json_schema(arg) for arg in present]}
        if type(None) not in args:
            return inner
        if "type" in inner:
            return {**inner, "type": [inner["type"], "null"]}
        return {"anyOf": [inner, {"type": "null"}]}
    if origin is tuple:
        return {"type": "array", "items": _json_schema(args[0])}
    if hint is Options:
        return {"$ref": SCHEMA_REF + "Options"}
    if hint is datetime:
        return {"type": "string", "format": "date-time"}
    for python, json_type in ((bool, "boolean"), (int, "integer"), (str, "string")):
        if hint is python:
            return {"type": json_type}
    raise TypeError(f"no JSON schema for an event field of type {hint!r}")


def _document_events(api: Api) -> None:
    converter = api.ma_plugin.converter
    envelope = converter.schema2jsonschema(schemas.EventSchema)
    mapping: dict[str, str] = {}
    for event_type, cls in EVENT_TYPES.items():
        hints = typing.get_type_hints(cls)
        fields = codec.data_fields(cls)
        data_name, event_name = f"{cls.__name__}Data", f"{cls.__name__}Event"
        api.spec.components.schema(
            data_name,
            {
                "type": "object",
                "description": f"The data of a `{event_type}` event; hidden fields are null until public.",
                "required": [field.name for field in fields],
                "properties": {field.name: {**_json_schema(hints[field.name]), "example": EXAMPLES.get(field.name)} for field in fields},
            },
        )
        properties = {
            **envelope["properties"],
            "type": {"type": "string", "const": event_type, "example": event_type},
            "data": {"$ref": SCHEMA_REF + data_name},
        }
        api.spec.components.schema(
            event_name, {"type": "object", "required": envelope["required"], "properties": properties}
        )
        mapping[event_type] = SCHEMA_REF + event_name
    union = {
        "description": (schemas.EventSchema.__doc__ or "").strip(),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    _own_schema(api, "Event", schemas.EventSchema, union)


# -- interactive docs ---------------------------------------------------------------------------


def serve_swagger_ui(app: Flask) -> None:
    """Swagger UI's files at /v1/docs/assets/ from the pinned flask-swagger-ui package (Apache-2.0, its LICENSE there too)."""
    assets = str(files("flask_swagger_ui") / "dist")

    def asset(filename: str) -> Response:
        return send_from_directory(assets, filename, max_age=86400)

    app.add_url_rule(SWAGGER_UI_ASSETS + "<path:filename>", "swagger_ui_asset", asset)

"""Every error as application/problem+json (RFC 9457), mapped in one place.

Domain refusals (`RuleViolation`) and service refusals (`ServiceError`) carry
a stable `code`; `STATUS_BY_CODE` turns codes into status codes. HTTP errors
raised by Flask, werkzeug or flask-smorest (404 routes, 405, 413, 422 schema
errors, 304) go through the same handler, and a 500 never shows internals.
"""

from __future__ import annotations

import http
import logging
from typing import Any

import marshmallow as ma
from flask import Flask, Response, current_app, json, request
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException

from ..engine.errors import RuleViolation
from ..service import metrics
from ..service.errors import ServiceError, Unauthenticated, UnknownToken
from ..store.ports import Unavailable

PROBLEM = "application/problem+json"
TYPE_BASE = "https://copas.example/problems/"
log = logging.getLogger(__name__)

STATUS_BY_CODE: dict[str, int] = {
    "unauthenticated": 401,
    "forbidden": 403,
    "hints_disabled": 403,
    "not_found": 404,
    "validation_error": 422,
    "idempotency_key_reused": 422,
    "stale_version": 412,
    "payload_too_large": 413,
    "rate_limited": 429,
    "unavailable": 503,
    "thinker_unavailable": 503,
    # every other code of a refusal (the rules' codes) is a 409 conflict
}

CODE_BY_STATUS: dict[int, str] = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "stale_version",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    428: "precondition_required",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}

RETRY_AFTER_SECONDS = 1  # a database restart or failover takes seconds: come back soon
UNAVAILABLE_UNCHANGED = "the database is unavailable for a moment ({reason}); the request changed nothing: retry it"
UNAVAILABLE_UNKNOWN = (
    "the database was lost while the request was being committed ({reason}): it may or may not have been applied. "
    "Retry it with the same Idempotency-Key (a retry is answered with the first response, or runs once), "
    "or read the table before sending it again"
)


GENERIC_CODES: list[str] = [*dict.fromkeys(CODE_BY_STATUS.values()), "error"]  # "error": a status with no code of its own


def problem_schema(codes: list[str]) -> dict[str, Any]:
    """A problem whose `code` is one of `codes` (typed clients can switch on it)."""
    return {
        "allOf": [
            {"$ref": "#/components/schemas/Problem"},
            {"type": "object", "properties": {"code": {"type": "string", "enum": codes}}},
        ]
    }


class ProblemSchema(ma.Schema):
    """An error, as RFC 9457 problem details with a stable machine-readable `code`."""

    type = ma.fields.String(required=True, metadata={"example": TYPE_BASE + "not_your_turn"})
    title = ma.fields.String(required=True, metadata={"example": "Conflict"})
    status = ma.fields.Integer(required=True, metadata={"example": 409})
    detail = ma.fields.String(required=True, metadata={"example": "seat 2 plays now"})
    code = ma.fields.String(required=True, metadata={"example": "not_your_turn"})
    errors = ma.fields.Dict(
        metadata={"description": "Validation errors by location and field.", "example": {"json": {"card": ["Invalid card."]}}}
    )


def refusal_problem(error: ServiceError | RuleViolation) -> Response:
    """The problem answering a refusal of the rules or the service."""
    field = getattr(error, "field", None)
    errors = {"json": {field: [error.detail]}} if field else None  # a 422 lists the fields it refuses
    status = status_for(error.code)
    headers = {**challenge(error), **({"Retry-After": str(RETRY_AFTER_SECONDS)} if status == 503 else {})}
    return problem(status, error.code, error.detail, errors=errors, headers=headers)


def unavailable_problem(error: Unavailable) -> Response:
    """503 while the database is away: retry soon; say whether the request may have been applied."""
    metrics.database_unavailable(error.kind)
    log.warning("503 %s %s: database unavailable: %s%s", request.method, request.path, error.reason, " (outcome unknown)" if error.outcome_unknown else "")
    template = UNAVAILABLE_UNKNOWN if error.outcome_unknown else UNAVAILABLE_UNCHANGED
    return problem(503, "unavailable", template.format(reason=error.reason), headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def challenge(error: ServiceError | RuleViolation) -> dict[str, str]:
    """The `WWW-Authenticate` header of a 401 (RFC 9110 and RFC 6750): which scheme, and why."""
    if isinstance(error, UnknownToken):
        return {"WWW-Authenticate": 'Bearer realm="copas", error="invalid_token"'}
    if isinstance(error, Unauthenticated):
        return {"WWW-Authenticate": 'Bearer realm="copas"'}
    return {}


def http_problem(error: HTTPException) -> Response:
    """The problem answering an HTTP error (routing, schema, size, 304), as the Api renders it."""
    api: ProblemApi = current_app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    return api.handle_http_exception(error)


def status_for(code: str) -> int:
    return STATUS_BY_CODE.get(code, 409)


def problem(status: int, code: str, detail: str, *, errors: Any = None, headers: dict[str, str] | None = None) -> Response:
    body: dict[str, Any] = {
        "type": TYPE_BASE + code,
        "title": http.HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if errors is not None:
        body["errors"] = errors
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


class ProblemApi(Api):
    """flask-smorest's Api, answering and documenting errors as problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304) and status >= 400:
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM)
            self.spec.components.response(status.name, response, lazy=True)
        # Any other status (405, 406, 415, 500, ...) answers one of the HTTP layer's own codes.
        default = {"description": "Another HTTP error (problem details)", "schema": problem_schema(GENERIC_CODES)}
        prepare_response(default, self.spec, PROBLEM)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, default, lazy=True)

    def _register_pagination_header(self) -> None:
        """Nothing here is paginated the flask-smorest way (events page with after/limit)."""

    def handle_http_exception(self, error: HTTPException) -> Response:
        status = error.code or 500
        if status >= 500:
            original = getattr(error, "original_exception", None)
            if original is not None:
                log.exception("unhandled error", exc_info=original)
            return problem(500, "internal_error", "the server failed to answer; the request changed nothing")
        data = getattr(error, "data", None) or {}
        errors = data.get("errors") or data.get("messages")
        code = CODE_BY_STATUS.get(status, GENERIC_CODES[-1])
        detail = data.get("message") or error.description or http.HTTPStatus(status).phrase
        if status == 422:
            detail = "the request does not match the schema"
        headers = dict(data.get("headers") or {})
        if status == 405:
            headers.update({key: value for key, value in error.get_headers() if key == "Allow"})
        return problem(status, code, detail, errors=errors, headers=headers)


def register(app: Flask) -> None:
    """Map the named refusals of the engine and the service to problems."""

    app.register_error_handler(RuleViolation, refusal_problem)
    app.register_error_handler(ServiceError, refusal_problem)
    app.register_error_handler(Unavailable, unavailable_problem)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        if isinstance(error, HTTPException):
            return http_problem(error)
        log.exception("unhandled error", exc_info=error)
        return problem(500, "internal_error", "the server failed to answer; the request changed nothing")

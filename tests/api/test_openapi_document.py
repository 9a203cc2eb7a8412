"""The OpenAPI document: committed, served and printed alike; valid; complete.

When a test here fails because the document changed on purpose, regenerate it:
`.venv/bin/python -m api.cli openapi > openapi/openapi.json`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.cli import openapi_document

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "openapi" / "openapi.json"
PROBLEM = "application/problem+json"
CARD_PATTERN = "^[2-9TJQKA][CDHS]$"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
REGENERATE = "regenerate it: .venv/bin/python -m api.cli openapi > openapi/openapi.json"


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    return json.loads(COMMITTED.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def served() -> dict[str, Any]:
    from api import create_app
    from api.config import Settings
    from api.store import open_store

    app = create_app(Settings(), store=open_store("memory://"))
    response = app.test_client().get("/v1/openapi.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


def resolve(document: dict[str, Any], node: Any) -> Any:
    """`node`, or what its `$ref` points to (following chains)."""
    while isinstance(node, dict) and "$ref" in node:
        pointer = node["$ref"]
        assert pointer.startswith("#/"), pointer
        node = document
        for part in pointer[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def walk(node: Any, where: str = "#") -> Iterator[tuple[str, Any]]:
    yield where, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}/{index}")


# -- one document ----------------------------------------------------------------


def test_the_committed_document_is_what_the_service_serves(committed: dict[str, Any], served: dict[str, Any]) -> None:
    assert served == committed, REGENERATE


def test_the_committed_document_is_what_the_cli_prints() -> None:
    # `copas openapi` prints the text with print(), one newline more than the function returns.
    assert openapi_document().rstrip("\n") == COMMITTED.read_text(encoding="utf-8").rstrip("\n"), REGENERATE


def test_python_m_api_cli_openapi_prints_the_committed_document() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "api.cli", "openapi"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert printed.stdout == COMMITTED.read_text(encoding="utf-8"), REGENERATE


def test_the_interactive_docs_answer_html() -> None:
    from api import create_app
    from api.config import Settings
    from api.store import open_store

    response = create_app(Settings(), store=open_store("memory://")).test_client().get("/v1/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert b"/v1/openapi.json" in response.data


# -- a valid OpenAPI 3 document ----------------------------------------------------


def test_the_document_is_valid_openapi_3_1(committed: dict[str, Any]) -> None:
    # 3.1, so that a nullable nested object is exactly "that schema or null".
    assert committed["openapi"].startswith("3.1.")
    try:
        from openapi_spec_validator import validate  # type: ignore[import-not-found]
    except ImportError:  # the official OpenAPI 3.1 JSON schema, as schemathesis ships it
        import jsonschema_rs
        from schemathesis.specs.openapi.definitions import OPENAPI_31

        errors = [error.message for error in jsonschema_rs.Draft202012Validator(OPENAPI_31).iter_errors(committed)]
        assert errors == []
    else:
        validate(committed)


def test_nullable_objects_are_exactly_their_schema_or_null(committed: dict[str, Any]) -> None:
    view = committed["components"]["schemas"]["TableView"]["properties"]
    for name in ("trick", "last_trick", "result"):
        options = view[name]["anyOf"]
        assert {"type": "null"} in options and len(options) == 2, name
        assert any("$ref" in option for option in options), name


def test_every_ref_points_at_something(committed: dict[str, Any]) -> None:
    for where, node in walk(committed):
        if isinstance(node, dict) and "$ref" in node:
            try:
                resolve(committed, node)
            except KeyError:
                pytest.fail(f"{where}: dangling $ref {node['$ref']}")


def test_every_operation_has_a_summary_tags_and_a_success_response(committed: dict[str, Any]) -> None:
    for path, method, operation in operations(committed):
        assert operation.get("summary"), (method, path)
        assert operation.get("tags"), (method, path)
        assert any(status.startswith("2") for status in operation["responses"]), (method, path)


# -- examples ------------------------------------------------------------------------


def _has_example(document: dict[str, Any], prop: dict[str, Any]) -> bool:
    if "example" in prop or "examples" in prop:
        return True
    # A nested schema is a component of its own: its examples are checked there.
    alternatives = [prop, *prop.get("allOf", []), *prop.get("anyOf", []), *prop.get("oneOf", [])]
    if any("$ref" in alternative for alternative in alternatives):
        return True
    items = prop.get("items")
    return prop.get("type") == "array" and isinstance(items, dict) and ("$ref" in items or "example" in items)


def test_every_component_schema_has_examples(committed: dict[str, Any]) -> None:
    missing = {
        name: [key for key, prop in schema.get("properties", {}).items() if not _has_example(committed, prop)]
        for name, schema in committed["components"]["schemas"].items()
        if "example" not in schema
    }
    assert {name: keys for name, keys in missing.items() if keys} == {}


def test_every_request_body_has_an_example(committed: dict[str, Any]) -> None:
    for path, method, operation in operations(committed):
        if "requestBody" in operation:
            media = operation["requestBody"]["content"]["application/json"]
            assert "example" in media or "examples" in media, (method, path)


# -- errors ----------------------------------------------------------------------------


def test_every_error_response_is_problem_json(committed: dict[str, Any]) -> None:
    problem_ref = "#/components/schemas/Problem"
    for path, method, operation in operations(committed):
        errors = {status: response for status, response in operation["responses"].items() if status == "default" or status >= "4"}
        if (method, path) == ("get", "/v1/health"):
            errors.pop("503")  # not an error of the request: the health report itself, saying "degraded"
        assert errors, (method, path)
        for status, response in errors.items():
            content = resolve(committed, response).get("content", {})
            assert list(content) == [PROBLEM], (method, path, status)
            assert content[PROBLEM]["schema"] == {"$ref": problem_ref}, (method, path, status)
    problem = committed["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "code"} <= set(problem["required"])


def test_operations_document_the_errors_they_can_give(committed: dict[str, Any]) -> None:
    for path, method, operation in operations(committed):
        statuses = set(operation["responses"])
        if operation.get("security"):
            assert {"401", "404"} <= statuses, (method, path)
        if operation.get("parameters") or operation.get("requestBody"):
            assert "422" in statuses, (method, path)
        if "requestBody" in operation:
            assert "413" in statuses, (method, path)
        if method == "post" and "{table_id}" in path:  # moves: refused by the rules, or not yours to make
            assert {"403", "409", "412"} <= statuses, (method, path)


# -- limits ------------------------------------------------------------------------------


def test_the_card_pattern_is_in_the_document(committed: dict[str, Any]) -> None:
    schemas = committed["components"]["schemas"]
    assert schemas["Play"]["properties"]["card"]["pattern"] == CARD_PATTERN
    assert schemas["Pass"]["properties"]["cards"]["items"]["pattern"] == CARD_PATTERN
    assert schemas["Pass"]["properties"]["cards"]["uniqueItems"] is True
    assert CARD_PATTERN in json.dumps(committed)


def _request_schemas(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    # Path parameters are left out: the code takes any table id or invite code and answers
    # 404 for unknown ones, so there is no limit to state; so is flask-smorest's
    # If-None-Match (a $ref), which is compared, never refused.
    for path, method, operation in operations(document):
        for parameter in operation.get("parameters", []):
            if "$ref" in parameter:
                continue
            yield f"{method} {path} {parameter['in']} {parameter['name']}", parameter["schema"]
        if "requestBody" in operation:
            body = resolve(document, operation["requestBody"]["content"]["application/json"]["schema"])
            for name, prop in body.get("properties", {}).items():
                yield f"{method} {path} body {name}", prop
                if prop.get("type") == "array":
                    yield f"{method} {path} body {name}[]", prop["items"]


def test_every_request_limit_is_stated(committed: dict[str, Any]) -> None:
    """Strings are bounded and exclude NUL; integers have ranges or enums; arrays have sizes."""
    for where, schema in _request_schemas(committed):
        kind = schema.get("type")
        if kind == "string" and "enum" not in schema:
            assert "maxLength" in schema or "pattern" in schema, where
            if "pattern" in schema:
                sample = str(schema.get("example", "ab"))
                poisoned = sample[:1] + "\x00" + sample[1:]
                assert re.search(schema["pattern"], poisoned) is None, f"{where}: the pattern admits NUL"
            else:
                pytest.fail(f"{where}: a free string should state a pattern excluding NUL")
        elif kind == "integer" and "enum" not in schema:
            assert "minimum" in schema and "maximum" in schema, where
        elif kind == "array":
            assert "maxItems" in schema, where
    schemas = committed["components"]["schemas"]
    for name in ("CreateTable", "Join", "Bots", "Pass", "Play", "Accusation", "Preferences"):
        assert schemas[name].get("additionalProperties") is False, f"{name}: unknown fields are refused (422)"

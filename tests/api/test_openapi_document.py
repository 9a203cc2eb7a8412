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


def test_the_interactive_docs_answer_html_that_needs_no_other_site() -> None:
    from api import create_app
    from api.config import Settings
    from api.store import open_store

    client = create_app(Settings(), store=open_store("memory://")).test_client()
    response = client.get("/v1/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "/v1/openapi.json" in page
    assert "//" not in page.replace("http://www.w3.org", "")  # no CDN: every script and style is the service's own
    assets = re.findall(r'(?:src|href)="(/v1/docs/assets/[^"]+)"', page)
    assert {"swagger-ui-bundle.js", "swagger-ui.css"} <= {asset.rsplit("/", 1)[1] for asset in assets}
    for asset in assets:
        served = client.get(asset)
        assert served.status_code == 200 and len(served.data) > 1000, asset
    assert b"Apache License" in client.get("/v1/docs/assets/LICENSE").data  # Swagger UI's license travels with it


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
            schema = content[PROBLEM]["schema"]
            assert schema == {"$ref": problem_ref} or {"$ref": problem_ref} in schema["allOf"], (method, path, status)
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


# -- what generated clients switch on ------------------------------------------------------


def test_every_operation_has_a_unique_operation_id_and_a_description(committed: dict[str, Any]) -> None:
    ids = [operation.get("operationId") for _, _, operation in operations(committed)]
    assert all(isinstance(name, str) and re.fullmatch(r"[a-z][A-Za-z]+", name) for name in ids), ids
    assert len(set(ids)) == len(ids)
    for path, method, operation in operations(committed):
        assert operation.get("description"), (method, path)


def test_public_operations_say_they_need_no_token_and_the_others_need_a_bearer(committed: dict[str, Any]) -> None:
    public = {(method, path) for path, method, operation in operations(committed) if operation["security"] == []}
    assert public >= {("post", "/v1/tables"), ("post", "/v1/invites/{invite_code}/join"), ("get", "/v1/invites/{invite_code}"), ("get", "/v1/health")}
    for path, method, operation in operations(committed):
        if (method, path) not in public:
            assert operation["security"] == [{"bearerAuth": []}], (method, path)


def _problem_codes(document: dict[str, Any], operation: dict[str, Any]) -> dict[str, list[str]]:
    codes = {}
    for status, response in operation["responses"].items():
        if status == "default" or not status.startswith(("4", "5")) or "application/json" in resolve(document, response).get("content", {}):
            continue
        schema = resolve(document, response)["content"][PROBLEM]["schema"]
        (part,) = [item for item in schema["allOf"] if "properties" in item]
        codes[status] = part["properties"]["code"]["enum"]
    return codes


def test_every_operation_lists_the_problem_codes_it_can_answer_per_status(committed: dict[str, Any]) -> None:
    from api.web.errors import status_for

    for path, method, operation in operations(committed):
        codes = _problem_codes(committed, operation)
        assert "rate_limited" in codes["429"], (method, path)
        for status, listed in codes.items():
            assert listed and len(set(listed)) == len(listed), (method, path, status)
            for code in listed:
                assert status_for(code) == int(status) or code in ("payload_too_large", "rate_limited"), (method, path, code)
        if not path.startswith("/v1/health"):  # readiness documents its own 503; liveness asks no database
            assert "unavailable" in codes["503"], (method, path)
    play = _problem_codes(committed, committed["paths"]["/v1/tables/{table_id}/plays"]["post"])
    assert play["409"][:8] == [  # the contract's order of precedence
        "match_not_running", "wrong_phase", "not_your_turn", "card_not_in_hand",
        "must_lead_two_of_clubs", "must_follow_suit", "no_points_on_first_trick", "hearts_not_broken",
    ]


def _refusal_codes() -> set[str]:
    from api.engine.errors import RuleViolation
    from api.service.errors import ServiceError

    def subclasses(cls: type) -> set[type]:
        found = set(cls.__subclasses__())
        return found.union(*(subclasses(sub) for sub in found))

    return {cls.code for base in (RuleViolation, ServiceError) for cls in subclasses(base)}


def test_every_refusal_the_engine_and_the_service_define_is_documented_somewhere(committed: dict[str, Any]) -> None:
    documented = {code for _, _, operation in operations(committed) for listed in _problem_codes(committed, operation).values() for code in listed}
    # `table_exists`: creating a table that exists cannot happen through HTTP (the service picks a fresh id).
    assert _refusal_codes() - documented == {"table_exists"}


def test_events_are_a_union_told_apart_by_type_with_typed_data(committed: dict[str, Any]) -> None:
    from api.engine.events import EVENT_TYPES

    schemas = committed["components"]["schemas"]
    page = schemas["EventPage"]["properties"]["events"]
    assert page["items"] == {"$ref": "#/components/schemas/Event"}
    union = schemas["Event"]
    assert union["discriminator"]["propertyName"] == "type"
    mapping = union["discriminator"]["mapping"]
    assert set(mapping) == set(EVENT_TYPES)
    assert sorted(option["$ref"] for option in union["oneOf"]) == sorted(mapping.values())
    for event_type, ref in mapping.items():
        event = resolve(committed, {"$ref": ref})
        assert event["properties"]["type"]["const"] == event_type
        data = resolve(committed, event["properties"]["data"])
        assert data["type"] == "object" and set(data["required"]) == set(data["properties"]), event_type
    card_played = resolve(committed, resolve(committed, {"$ref": mapping["card_played"]})["properties"]["data"])
    assert card_played["properties"]["card"]["type"] == "string"


def test_every_closed_set_is_one_enum_component_referred_to_everywhere(committed: dict[str, Any]) -> None:
    schemas = committed["components"]["schemas"]
    for where, node in walk(committed["components"]["schemas"]):
        if isinstance(node, dict) and node.get("type") == "string" and "enum" in node and where.count("/") > 2:
            pytest.fail(f"{where}: an inline enum; closed sets are components")
        if isinstance(node, dict) and isinstance(node.get("type"), list) and "enum" in node:
            pytest.fail(f"{where}: a nullable enum is anyOf [its $ref, null]")
    view = schemas["TableView"]["properties"]
    assert view["status"]["$ref"].endswith("/Status")
    assert {"$ref": "#/components/schemas/PassDirection"} in view["pass_direction"]["anyOf"]
    assert {"$ref": "#/components/schemas/BotLevel"} in schemas["Seat"]["properties"]["bot_level"]["anyOf"]
    assert schemas["You"]["properties"]["deck_design"]["$ref"].endswith("/DeckDesign")
    for name, values in (("Status", "waiting passing playing finished"), ("SeatKind", "human bot empty"), ("Role", "player spectator")):
        assert schemas[name]["enum"] == values.split(), name


def test_answers_that_carry_a_view_refer_to_the_one_view_schema(committed: dict[str, Any]) -> None:
    schemas = committed["components"]["schemas"]
    for name in ("AccusationAnswer", "PreferencesAnswer"):
        assert schemas[name]["allOf"][0] == {"$ref": "#/components/schemas/TableView"}, name
        assert "status" not in schemas[name]["allOf"][1]["properties"], name
    for path, method, operation in operations(committed):
        for status, response in operation["responses"].items():
            schema = resolve(committed, response).get("content", {}).get("application/json", {}).get("schema", {})
            if schema.get("$ref", "").endswith(("/TableView", "/AccusationAnswer", "/PreferencesAnswer")):
                continue
            assert "you" not in resolve(committed, schema).get("properties", {}), (method, path, status)


def test_creating_and_joining_have_their_own_answers(committed: dict[str, Any]) -> None:
    schemas = committed["components"]["schemas"]
    create = committed["paths"]["/v1/tables"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    join = committed["paths"]["/v1/invites/{invite_code}/join"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    assert create == {"$ref": "#/components/schemas/CreateTableAnswer"}
    assert join == {"$ref": "#/components/schemas/Admission"}
    answer = schemas["CreateTableAnswer"]["allOf"]
    assert answer[0] == join
    assert set(answer[1]["required"]) == {"invite_code", "invite_url"}
    assert not answer[1]["properties"]["invite_url"]["example"].endswith("/join")
    assert "invite_code" not in schemas["Admission"]["properties"]

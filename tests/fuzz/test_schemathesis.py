"""Schemathesis over the whole OpenAPI document, in process, against every store.

Every operation of the served document, with every check schemathesis has
(`schemathesis.checks.CHECKS`: server errors, status codes, content types,
response schemas and headers, negative data rejected, positive data accepted,
missing headers, unsupported methods, Allow, auth enforced, ...) plus the
contract's own: errors are problem+json with their `code`, a 304 has no body,
a 405 says Allow.

To reach the handlers rather than 401/404, each case is aimed at a table with
four human seats and a spectator: the real `table_id` and `invite_code`, and the
bearer token of one of them in turn (cases that drop or spoil the token on
purpose keep it dropped or spoiled).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, CheckContext, load_all_checks
from schemathesis.specs.openapi import checks as builtin_checks

from api import create_app
from api.config import Settings
from api.store import open_store

from api.engine.rule_set import OPTION_NAMES

from .conftest import Seated

load_all_checks()


def positive_data_acceptance(ctx: CheckContext, response: schemathesis.Response, case: schemathesis.Case) -> bool | None:
    """The built-in check, except for the two 422s that no document can rule out.

    - `idempotency_key_reused`: the contract answers a key reused with another
      body with 422; that conflicts with an earlier request, not with the
      document (generated keys repeat across examples).
    - a rule set that section 9 refuses although each option is valid alone
      (`across` with 3 players, ...), or a seat the table does not have (seats
      go up to 4 for five players): such refusals name only those fields.
    - a webhook URL of the right shape whose host the service will not call
      (it does not resolve, or it is private): that depends on DNS and on the
      deployment's allow-list. Such refusals name only `webhook_url` and say why;
      a schema mismatch says "does not match the schema".
    """
    if response.status_code == 422:
        problem = _problem(response)
        if problem.get("code") == "idempotency_key_reused":
            return None
        named = problem.get("errors", {}).get("json", {}) if problem.get("errors", {}).keys() == {"json"} else {}
        if (
            problem.get("code") == "validation_error"
            and named
            and set(named) <= {*OPTION_NAMES, "seat", "seats"}
            and "does not match the schema" not in problem.get("detail", "")
        ):
            return None
        if (
            problem.get("code") == "validation_error"
            and problem.get("errors", {}).keys() == {"json"}
            and problem["errors"]["json"].keys() == {"webhook_url"}
            and "does not match the schema" not in problem.get("detail", "")
        ):
            return None
    return builtin_checks.positive_data_acceptance(ctx, response, case)


def _problem(response: schemathesis.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except Exception:  # noqa: BLE001 - not JSON: the built-in checks will say so
        return {}
    return body if isinstance(body, dict) else {}


def contract_errors(ctx: CheckContext, response: schemathesis.Response, case: schemathesis.Case) -> bool | None:
    """Errors are problem+json with a `code`; a 304 has no body; a 405 says Allow."""
    status = response.status_code
    if status == 304:
        assert not response.content, "a 304 carries no body"
    if status == 405:
        assert response.headers.get("allow"), "a 405 lists the allowed methods in Allow"
    if status >= 400:
        content_type = (response.headers.get("content-type") or [""])[0]
        assert content_type.startswith("application/problem+json"), content_type
        problem = _problem(response)
        assert problem.get("status") == status and isinstance(problem.get("code"), str), problem
    return None


ALL_CHECKS = [
    positive_data_acceptance if check is builtin_checks.positive_data_acceptance else check
    for check in CHECKS.get_all()
    if not isinstance(check, type)
] + [contract_errors]
assert positive_data_acceptance in ALL_CHECKS and len(ALL_CHECKS) >= 15

CONFIG = schemathesis.Config.from_dict(
    {
        "checks": {
            # 412: the If-Match precondition failed (the table moved on); the document cannot
            # know the current version, so a well-formed If-Match may be stale. Not a validation refusal.
            "positive_data_acceptance": {"expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "412", "429"]},
        }
    }
)
schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", create_app(Settings(), store=open_store("memory://")), config=CONFIG)


_turns = itertools.count()
PLACEHOLDER = "seat-token-"


@schema.auth(refresh_interval=None)
class SeatToken:
    """A bearer token of the target table: the four seats and the spectator in turn.

    Cases are generated before the table exists (explicit examples at collection), so
    the provider writes a placeholder that `aim` swaps for the real token.
    """

    def get(self, case: schemathesis.Case, context: schemathesis.AuthContext) -> str:
        return f"{PLACEHOLDER}{next(_turns) % 5}"

    def set(self, case: schemathesis.Case, data: str, context: schemathesis.AuthContext) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


def aim(case: schemathesis.Case, seated: Seated) -> None:
    """Aim the case at the seated table: its id, its invite code, a seat's or the spectator's token."""
    pinned = {"table_id": seated.table_id, "invite_code": seated.invite_code}
    if set(case.path_parameters or {}) & set(pinned):
        case.path_parameters = {**case.path_parameters, **{k: v for k, v in pinned.items() if k in case.path_parameters}}
    token = (case.headers or {}).get("Authorization", "")
    if token.startswith(f"Bearer {PLACEHOLDER}"):
        seat = int(token.removeprefix(f"Bearer {PLACEHOLDER}"))
        case.headers = {**case.headers, "Authorization": f"Bearer {seated.tokens[seat]}"}


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_whole_document(case: schemathesis.Case, fuzz_app: object, seated: Seated) -> None:
    aim(case, seated)
    case.call_and_validate(app=fuzz_app, checks=ALL_CHECKS)

"""Clients generated from the committed openapi/openapi.json work, and the document passes the linters.

- openapi-python-client (PyPI): the generated package imports, and a short
  script with it plays a whole match against the service on a random port.
- openapi-typescript + openapi-fetch (npm): `client.ts` type-checks with
  `tsc --strict` against the generated types (a misspelt problem code would not).
- `redocly lint` (recommended rules), `spectral lint` (spectral:oas): no errors.

The npm tools are pinned by tests/clients/package-lock.json and installed by
`make test` (`npm ci`); without Node.js those checks are skipped, saying so.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DOCUMENT = ROOT / "openapi" / "openapi.json"
BIN = HERE / "node_modules" / ".bin"
NO_NODE = "Node.js or tests/clients/node_modules is missing: run `make test` (npm ci) to check the TypeScript client and the linters"

needs_node = pytest.mark.skipif(shutil.which("node") is None or not (BIN / "tsc").exists(), reason=NO_NODE)
pytestmark = pytest.mark.xdist_group("clients")


def run(command: list[str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=HERE, capture_output=True, text=True, timeout=timeout, check=False)


# -- Python --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def copas_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The package openapi-python-client generates from the committed document, imported."""
    generator = Path(sys.executable).with_name("openapi-python-client")
    if not generator.exists():
        pytest.skip("openapi-python-client is a dev extra: make install-dev")
    where = tmp_path_factory.mktemp("python-client")
    config = where / "config.yaml"
    config.write_text("post_hooks: []\n", encoding="utf-8")
    generated = subprocess.run(
        [str(generator), "generate", "--path", str(DOCUMENT), "--meta", "none", "--output-path", str(where / "copas_client"), "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert "Warning" not in generated.stdout + generated.stderr, generated.stdout + generated.stderr
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module("copas_client")
    finally:
        sys.path.remove(str(where))
        for name in [name for name in sys.modules if name == "copas_client" or name.startswith("copas_client.")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """The service on a random loopback port (in-memory store), served by werkzeug."""
    from werkzeug.serving import make_server

    from api import create_app
    from api.config import Settings
    from api.store import open_store

    server = make_server("127.0.0.1", 0, create_app(Settings(), store=open_store("memory://")), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)


def play_a_match(base_url: str) -> tuple[Any, Any]:
    """What a frontend developer would write with the generated client: one human and three bots."""
    from copas_client import AuthenticatedClient, Client
    from copas_client.api.tables import create_table, get_table, pass_cards, play_card, seat_bots
    from copas_client.models import BotLevel, Bots, CreateTable, CreateTableAnswer, Pass, Play, Status, TableView

    created = create_table.sync(client=Client(base_url=base_url), body=CreateTable(name="Ana", target_score=25))
    assert isinstance(created, CreateTableAnswer), created
    assert created.invite_url.endswith(created.invite_code)  # no assertion needed that it is there: it is typed so
    me = AuthenticatedClient(base_url=base_url, token=created.token, timeout=30)
    view = seat_bots.sync(created.table_id, client=me, body=Bots(level=BotLevel.BASIC))
    assert isinstance(view, TableView), view
    for _ in range(2000):  # bounded: a 25-point match takes a few hundred moves
        view = get_table.sync(created.table_id, client=me)
        assert isinstance(view, TableView), view
        if view.status is Status.FINISHED:
            return view, me
        if view.status is Status.PASSING and view.you.legal_moves:
            moved = pass_cards.sync(created.table_id, client=me, body=Pass(cards=view.you.legal_moves[:3]))
        elif view.status is Status.PLAYING and view.turn == view.you.seat:
            moved = play_card.sync(created.table_id, client=me, body=Play(card=view.you.legal_moves[0]))
        else:
            pytest.fail(f"the bots answer at once, so a human seat waits only for itself: {view.to_dict()}")
        assert isinstance(moved, TableView), moved
    pytest.fail("the match did not end")


def test_a_python_client_generated_from_the_document_plays_a_whole_match(copas_client: Any, base_url: str) -> None:
    from copas_client.api.events import list_events
    from copas_client.models import CardPlayedEvent, EndReason, EventPage, RoundDealtEvent

    view, me = play_a_match(base_url)
    assert view.result is not None and view.result.reason is EndReason.TARGET
    page = list_events.sync(view.table_id, client=me, limit=500)
    assert isinstance(page, EventPage)
    kinds = {type(event) for event in page.events}
    assert {CardPlayedEvent, RoundDealtEvent} <= kinds  # the union is told apart by `type`
    assert all(event.data.card for event in page.events if isinstance(event, CardPlayedEvent))


def test_a_refusal_comes_back_as_its_typed_problem(copas_client: Any, base_url: str) -> None:
    from copas_client import AuthenticatedClient, Client
    from copas_client.api.tables import create_table, play_card
    from copas_client.models import CreateTable, Play, PlayCardResponse409, PlayCardResponse409Code

    created = create_table.sync(client=Client(base_url=base_url), body=CreateTable(name="Ana"))
    refused = play_card.sync(created.table_id, client=AuthenticatedClient(base_url=base_url, token=created.token), body=Play(card="2C"))
    assert isinstance(refused, PlayCardResponse409)
    assert refused.code is PlayCardResponse409Code.MATCH_NOT_RUNNING


# -- TypeScript and the linters -------------------------------------------------------------


@needs_node
def test_a_typescript_client_type_checks_strictly_against_the_generated_types() -> None:
    generated = run([str(BIN / "openapi-typescript"), str(DOCUMENT), "-o", "generated/schema.d.ts"])
    assert generated.returncode == 0, generated.stdout + generated.stderr
    types = (HERE / "generated" / "schema.d.ts").read_text(encoding="utf-8")
    assert 'operations["playCard"]' in types and "operations = Record<string, never>" not in types
    checked = run([str(BIN / "tsc"), "-p", "tsconfig.json"])
    assert checked.returncode == 0, checked.stdout + checked.stderr


@needs_node
def test_redocly_finds_nothing_wrong_with_the_document() -> None:
    linted = run([str(BIN / "redocly"), "lint", "--config", "redocly.yaml", str(DOCUMENT)])
    output = linted.stdout + linted.stderr
    assert linted.returncode == 0, output
    assert "Your API description is valid" in output and "warning" not in output.replace("Deprecation warning", ""), output


@needs_node
def test_spectral_finds_nothing_wrong_with_the_document() -> None:
    linted = run([str(BIN / "spectral"), "lint", "--ruleset", ".spectral.yaml", "--fail-severity", "warn", str(DOCUMENT)])
    output = linted.stdout + linted.stderr
    assert linted.returncode == 0, output
    assert "No results with a severity of 'warn' or higher found" in output or "0 problems" in output or output.strip() == "", output

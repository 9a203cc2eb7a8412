"""The web client's files as the service hands them out (no browser needed)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from api.web.frontend import FILES

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_is_served_at_the_root_with_a_policy_that_keeps_it_to_its_own_origin(memory_app) -> None:
    answer = memory_app.test_client().get("/")
    assert answer.status_code == 200
    assert answer.mimetype == "text/html"
    assert b'<script type="module" src="client/app.js">' in answer.data
    policy = answer.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy
    assert answer.headers["Referrer-Policy"] == "no-referrer"


def test_every_file_of_the_client_is_served_with_its_type(memory_app) -> None:
    client = memory_app.test_client()
    types = {".js": "javascript", ".css": "text/css", ".svg": "image/svg+xml", ".html": "text/html"}
    files = sorted(path for path in FILES.iterdir() if path.is_file())
    assert {path.suffix for path in files} == set(types)
    for path in files:
        answer = client.get(f"/client/{path.name}")
        assert answer.status_code == 200, path.name
        assert types[path.suffix] in answer.content_type, (path.name, answer.content_type)


def test_an_unknown_file_is_a_404_and_the_api_keeps_its_problems(memory_app) -> None:
    client = memory_app.test_client()
    assert client.get("/client/nothing.js").status_code == 404
    answer = client.get("/v1/nothing")
    assert answer.status_code == 404 and answer.json["code"] == "not_found"


def test_the_client_fetches_nothing_from_another_origin() -> None:
    for path in FILES.iterdir():
        text = path.read_text(encoding="utf-8")
        urls = set(re.findall(r"https?://[^\s\"'`)]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, (path.name, urls)


def test_every_module_the_page_imports_is_one_of_its_files() -> None:
    for path in FILES.glob("*.js"):
        for module in re.findall(r"""from\s+["'](\.[^"']+)["']""", path.read_text(encoding="utf-8")):
            assert (FILES / module).resolve().is_file(), (path.name, module)


def test_the_files_are_package_data_so_an_installed_service_serves_them() -> None:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["api.web"]
    package = FILES.parent
    covered = {path for pattern in patterns for path in package.glob(pattern)}
    assert covered == {path for path in FILES.iterdir() if path.is_file()}

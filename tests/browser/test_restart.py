"""The page through a server restart in the middle of a match: the lost connection is shown, then it goes on."""

from __future__ import annotations

import time

import pytest

from .conftest import NETWORK_FAILURE
from .test_whole_match import create_table


@pytest.mark.console_allows(*NETWORK_FAILURE, "Failed to load resource")
def test_the_page_shows_the_lost_connection_and_plays_on_after_the_server_restarts(start_server, browser) -> None:
    server = start_server()
    page = browser("restart").open(server.url + "/")
    create_table(page, "Ana")
    page.find("#seat-bots").click()
    deadline = time.monotonic() + 60
    while page.state().get("status") != "playing" or page.find_all("#trick .card") == []:
        assert time.monotonic() < deadline
        page.act() or time.sleep(0.05)
    version = page.state()["version"]

    server.stop()
    page.wait(lambda: page.state().get("connection") == "offline", timeout=40, message="the page notices the server is gone")
    assert "retrying" in page.text("#connection")
    page.screenshot("connection-lost")

    server.start()  # the same port and database
    page.wait(lambda: page.state().get("connection") in ("live", "polling"), timeout=40, message="the page reconnects")
    assert page.state()["version"] == version  # nothing was lost or played meanwhile
    page.wait(lambda: page.state().get("awaitingMe") == "true")
    assert page.act(), "a move after the restart"
    assert int(page.state()["version"]) > int(version)

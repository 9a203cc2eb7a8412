"""Ending a match through the page: a stalled one (abandonment), then, after the rematch, a resignation."""

from __future__ import annotations

import time

from .conftest import Page
from .test_whole_match import create_table


def finish_with(page: Page, button: str) -> None:
    page.click(button)
    page.wait(lambda: page.state().get("status") == "finished", message=f"{button} ends the match")


def test_a_player_ends_a_stalled_match_then_resigns_the_rematch(start_server, browser) -> None:
    server = start_server(COPAS_STALL_SECONDS="1")  # the 48 hours of the rule, shortened
    ana = browser("ender").open(server.url + "/")
    create_table(ana, "Ana")
    code = ana.find("#invite-link").get_attribute("value").rsplit("/", 1)[-1]
    assert server.call("POST", f"/v1/invites/{code}/join", body={"name": "Bruno"})[0] == 201  # Bruno never moves
    ana.wait(lambda: "Bruno" in ana.text("#felt"))
    ana.click("#seat-bots")
    ana.wait(lambda: ana.state().get("awaitingMe") == "true")
    assert ana.act()  # Ana passes; the table waits for Bruno
    ana.wait(lambda: "Waiting for Bruno" in ana.text("#turn"))
    time.sleep(1.2)
    finish_with(ana, "#abandon")
    assert "stalled" in ana.text("#result")
    assert "Winners: " in ana.text("#winners") and "Bruno" not in ana.text("#winners")

    ana.click("#rematch")
    ana.wait(lambda: ana.state().get("status") == "passing")
    ana.click("#resign")
    assert "Resign?" in ana.text("#actions")
    finish_with(ana, "#resign-yes")
    assert "resignation" in ana.text("#result") and "Ana" not in ana.text("#winners")
    ana.screenshot("resigned")

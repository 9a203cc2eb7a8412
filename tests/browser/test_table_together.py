"""Two people at one table from the invite link, a spectator watching, and a revoke accused through the page."""

from __future__ import annotations

import time

from selenium.webdriver.support.ui import Select

from .conftest import LiveServer, Page
from .test_whole_match import create_table


def join(page: Page, link: str, name: str) -> None:
    page.open(link)
    page.wait_for("#join-name").send_keys(name)
    page.find("#join-submit").click()
    page.wait(lambda: page.state().get("version") is not None, message=f"{name} at the table")


def play_until(pages: list[Page], done, timeout: float = 90, also=lambda: None) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the table did not get there in time"
        moved = [page.act() for page in pages]
        if also() is None and not any(moved):
            time.sleep(0.05)


def rounds_played(page: Page) -> int:
    return len(page.find_all("#score-table tbody tr"))


def test_the_creator_and_a_joiner_from_the_invite_link_play_a_round_while_a_spectator_watches_without_a_hand(live_server: LiveServer, browser) -> None:
    ana = browser("creator").open(live_server.url + "/")
    create_table(ana, "Ana")
    link = ana.find("#invite-link").get_attribute("value")
    assert link.startswith(live_server.url + "/#/t/")

    bruno = browser("joiner", width=390, height=844)  # a phone's width
    join(bruno, link, "Bruno")
    assert bruno.state()["role"] == "player"
    ana.wait(lambda: "Bruno" in ana.text("#felt"), message="Ana sees Bruno sit down")
    ana.find("#seat-bots").click()
    ana.wait(lambda: ana.state().get("status") == "passing")

    carla = browser("spectator")
    carla.open(link)
    assert "spectator" in carla.wait_for("#joins-as").text
    carla.find("#join-name").send_keys("Carla")
    carla.find("#join-submit").click()
    carla.wait(lambda: carla.state().get("role") == "spectator")
    assert carla.find("#spectating").is_displayed()
    assert not carla.find_all("#hand .card") and not carla.find("#hand-section").is_displayed()

    Select(ana.find("#deck-design")).select_by_value("minimal")  # Ana's screen only
    ana.wait(lambda: "deck-minimal" in ana.find(".table-page").get_attribute("class"))
    bruno.wait(lambda: int(bruno.state()["version"]) >= int(ana.state()["version"]))
    assert "deck-classic" in bruno.find(".table-page").get_attribute("class")

    bruno.wait_for("#hint").click()  # a hint for the pass: three cards, marked, picked, and why
    bruno.wait_for("#hint-box strong")  # the suggestion (and its reasons, when the server gives some)
    assert len(bruno.find_all("#hand .card.hinted")) == 3 == len(bruno.find_all("#hand .card.selected"))
    version = bruno.state()["version"]
    bruno.find("#pass-submit").click()
    bruno.wait(lambda: bruno.state()["version"] != version and bruno.find_all("#passed-note"))

    seen_by_spectator = set()

    def spectator_looks() -> None:
        seen_by_spectator.update(carla.js("return [...document.querySelectorAll('#trick .card')].map((card) => card.dataset.card)"))
        assert carla.js("return document.querySelectorAll('#hand .card').length") == 0

    play_until([ana, bruno], lambda: rounds_played(ana) >= 1, also=spectator_looks)
    assert bruno.js("return document.documentElement.scrollWidth <= window.innerWidth"), "the phone's page scrolls sideways"
    carla.wait(lambda: rounds_played(carla) >= 1, message="the spectator follows the table live")
    assert seen_by_spectator, "the spectator saw the tricks being played"
    assert "Carla" in ana.text("#status")
    ana.screenshot("two-players-creator")
    bruno.screenshot("two-players-joiner-phone")
    carla.screenshot("spectator")

    bruno.driver.refresh()  # a returning player: the same link, the same seat
    bruno.wait(lambda: bruno.state().get("role") == "player")
    assert "Bruno (you)" in bruno.text("#felt")


def test_a_revoke_at_a_revoke_allowed_table_is_accused_through_the_page(live_server: LiveServer, browser) -> None:
    ana = browser("accuser").open(live_server.url + "/")
    create_table(ana, "Ana", revoke="allowed")
    code = ana.find("#invite-link").get_attribute("value").rsplit("/", 1)[-1]
    status, bruno = live_server.call("POST", f"/v1/invites/{code}/join", body={"name": "Bruno"})
    assert status == 201
    ana.wait(lambda: "Bruno" in ana.text("#felt"))
    ana.find("#seat-bots").click()
    ana.wait(lambda: ana.state().get("status") == "passing")
    table, token = bruno["table_id"], bruno["token"]
    revoked = []

    def bruno_moves() -> bool | None:
        status, view = live_server.call("GET", f"/v1/tables/{table}", token)
        you = view["you"]
        if view["status"] == "passing" and you["legal_moves"]:
            live_server.call("POST", f"/v1/tables/{table}/passes", token, {"cards": you["legal_moves"][:3]})
            return True
        if view["status"] == "playing" and view["turn"] == 1 and you["playable"]:
            revokes = [card for card in you["playable"] if card not in you["legal_moves"]]
            card = revokes[0] if revokes and view["trick"]["number"] <= 10 else you["legal_moves"][0]
            status, _ = live_server.call("POST", f"/v1/tables/{table}/plays", token, {"card": card})
            assert status == 201
            if card in revokes:
                revoked.append(card)
            return True
        return None

    play_until([ana], lambda: bool(revoked) or rounds_played(ana) >= 1, also=bruno_moves)
    assert revoked, "Bruno found no card to revoke with in the first round"
    ana.wait(lambda: int(ana.state()["version"]) >= live_server.call("GET", f"/v1/tables/{table}", token)[1]["version"])
    assert ana.find_all("#accuse")
    Select(ana.find("#accuse-seat")).select_by_value("1")
    ana.find("#accuse").click()
    # Read afresh each time: the page re-renders (the stream's next view) and replaces the element.
    note = lambda: ana.js("return (document.querySelector('#accusation-note') || {}).textContent || ''")  # noqa: E731
    ana.wait(lambda: note(), message="accuser: #accusation-note")
    assert "Revoke found: Bruno pays" in note()
    ana.wait(lambda: rounds_played(ana) >= 1)
    assert "accusation" in ana.text("#score-table")
    ana.screenshot("accusation")

"""One person, in a Portuguese browser, creates a 50-point table, seats three bots and plays the match to its result."""

from __future__ import annotations

import time

from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from .conftest import LiveServer, Page


def create_table(page: Page, name: str, **options: str) -> None:
    page.find("#create-name").send_keys(name)
    for option, value in options.items():
        control = page.find(f"#opt-{option}")
        if control.tag_name == "select":
            Select(control).select_by_value(value)
        else:
            control.clear()
            control.send_keys(value)
    page.find("#create-submit").click()
    page.wait(lambda: page.state().get("status") == "waiting", message="the new table")


def pass_with_the_keyboard(page: Page) -> None:
    """Space picks the focused card, arrows move between cards, Tab reaches the pass button."""
    first = page.find("#hand .card[tabindex='0']")
    first.click()  # focus (and pick) the first card
    for _ in range(2):
        page.driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
        page.driver.switch_to.active_element.send_keys(Keys.SPACE)
    assert len(page.find_all("#hand .card.selected")) == 3
    version = page.state()["version"]
    page.find("#pass-submit").send_keys(Keys.ENTER)
    page.wait(lambda: page.state()["version"] != version and page.state().get("busy") != "true")


def test_a_person_plays_a_whole_50_point_match_against_three_bots_to_the_result(live_server: LiveServer, browser) -> None:
    page = browser("solo", lang="pt-BR").open(live_server.url + "/")
    assert page.js("return document.documentElement.lang") == "pt-BR"
    assert page.text("#create-submit") == "Criar mesa"  # Portuguese by default for a Portuguese browser
    page.screenshot("home-pt-BR")
    create_table(page, "Ana", target_score="50")
    assert "50" in page.text("#rules-body")
    page.find("#seat-bots").click()
    page.wait(lambda: page.state().get("status") == "passing")
    page.wait(lambda: page.state().get("awaitingMe") == "true")
    assert len(page.find_all("#felt .seat")) == 4
    labels = [card.get_attribute("aria-label") for card in page.find_all("#hand .card")]
    assert len(labels) == 13 and all(" de " in label for label in labels)  # "Dama de espadas"
    page.screenshot("passing")
    pass_with_the_keyboard(page)

    screenshots = {"playing"}
    deadline = time.monotonic() + 150
    while page.state().get("status") != "finished":
        assert time.monotonic() < deadline, "the match did not finish in time"
        if not page.act():
            time.sleep(0.05)
            continue
        if "playing" in screenshots and page.find_all("#trick .card") and page.state().get("status") == "playing":
            page.screenshot("playing")
            screenshots.discard("playing")

    page.wait_for("#winners")
    standings = page.find_all("table.standings tbody tr")
    assert len(standings) == 4
    assert max(int(row.find_elements("css selector", "td")[2].text) for row in standings) >= 50
    rounds = page.find_all("#score-table tbody tr")
    assert rounds, "the round history lists the rounds played"
    page.screenshot("result")

    page.find("#check-deals").click()
    page.wait(lambda: len(page.find_all("#deal-results li.ok")) == len(rounds))
    assert not page.find_all("#deal-results li.bad")
    assert "confere" in page.text("#deal-results")
    page.screenshot("deals-checked")

    page.find("#rematch").click()
    page.wait(lambda: page.state().get("status") == "passing")
    assert "Partida 2" in page.text("#status")

"""The web page in headless Chromium (Debian's chromium + chromium-driver), over a real socket:
one answered and one refused question, with screenshots in tests/artifacts/."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import Env
from tests.server.helpers import ANSWERED, REFUSED

webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--window-size=1100,1000")

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
           "chromium-driver)")


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _open(driver: Any, server: Env, key: str) -> None:
    """The page, with ``key`` in the key field and the workspace "docs" typed in."""
    driver.get(server.url + "/")
    driver.find_element(By.ID, "api-key").send_keys(key)
    workspace = driver.find_element(By.ID, "workspace")
    workspace.clear()
    workspace.send_keys("docs")


def _ask(driver: Any, question: str) -> str:
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    driver.find_element(By.ID, "ask").click()
    WebDriverWait(driver, 30).until(
        lambda d: d.find_element(By.ID, "result").get_attribute("data-state")
        in ("answered", "refused", "error"))
    state: str = driver.find_element(By.ID, "result").get_attribute("data-state")
    return state


def test_web_page_answers_and_refuses(server: Env, browser: Any, artifacts: Path) -> None:
    _open(browser, server, server.keys.docs)
    assert "abstain" in browser.title

    assert _ask(browser, ANSWERED) == "answered"
    answer = browser.find_element(By.ID, "answer").text
    assert "reset-password" in answer and "[1]" in answer
    citations = browser.find_elements(By.CSS_SELECTOR, "#citations li")
    assert citations and "reset-admin-password.md" in citations[0].text
    assert citations[0].find_element(By.TAG_NAME, "blockquote").text
    assert browser.find_element(By.ID, "triage").text == "confident"  # P(right) >= confident_at()
    assert "confidence" in browser.find_element(By.ID, "confidence").text
    assert "llm_called=false" in browser.find_element(By.ID, "status").text
    assert not browser.find_element(By.ID, "refusal").is_displayed()
    browser.save_screenshot(str(artifacts / "web_answered.png"))

    assert _ask(browser, REFUSED) == "refused"
    refusal = browser.find_element(By.ID, "refusal")
    assert refusal.is_displayed()
    assert browser.find_element(By.ID, "refusal-reason").text in ("unknown_entity",
                                                                  "no_evidence")
    assert "enough information" in browser.find_element(By.ID, "refusal-message").text
    assert "ADR-0050" in browser.find_element(By.ID, "missing").text
    assert browser.find_element(By.ID, "answer").text == ""
    assert browser.find_elements(By.CSS_SELECTOR, "#citations li") == []
    assert "refused" in browser.find_element(By.ID, "status").text
    browser.save_screenshot(str(artifacts / "web_refused.png"))
    assert (artifacts / "web_answered.png").stat().st_size > 10_000


def test_web_page_says_how_it_read_a_misspelt_question(server: Env, browser: Any) -> None:
    _open(browser, server, server.keys.docs)
    assert _ask(browser, ANSWERED.replace("password", "pasword")) == "answered"
    read_as = browser.find_element(By.ID, "read-as")
    assert read_as.is_displayed() and read_as.text == "Read as: " + ANSWERED
    assert _ask(browser, ANSWERED) == "answered"  # the next question's page starts clean
    assert not browser.find_element(By.ID, "read-as").is_displayed()


def test_the_workspace_field_offers_the_keys_workspaces(server: Env, browser: Any) -> None:
    """Found by a newcomer: the page asked its "default" workspace with a key of another one
    and was refused. Once a key is entered, the field names a workspace the key may ask."""
    browser.get(server.url + "/")
    assert browser.find_element(By.ID, "workspace").get_attribute("value") == "default"
    browser.find_element(By.ID, "api-key").send_keys(server.keys.docs)
    browser.find_element(By.ID, "question").click()  # the key field's change event
    WebDriverWait(browser, 30).until(
        lambda d: d.find_element(By.ID, "workspace").get_attribute("value") == "docs")
    offered = [o.get_attribute("value")
               for o in browser.find_elements(By.CSS_SELECTOR, "#workspaces option")]
    assert offered == ["docs"]
    assert _ask(browser, ANSWERED) == "answered"
    browser.execute_script("sessionStorage.clear()")  # a new tab: a key pasted and asked at
    browser.get(server.url + "/")  # once, before the key field's change event has run
    browser.execute_script("document.getElementById('api-key').value = arguments[0]",
                           server.keys.docs)
    assert browser.find_element(By.ID, "workspace").get_attribute("value") == "default"
    assert _ask(browser, ANSWERED) == "answered"


def test_web_page_shows_auth_errors(server: Env, browser: Any) -> None:
    _open(browser, server, server.keys.other)
    assert _ask(browser, ANSWERED) == "error"
    assert browser.find_element(By.ID, "error").text.startswith("forbidden:")


def test_web_page_reviews_the_query_log_with_one_click(server: Env, browser: Any,
                                                       artifacts: Path) -> None:
    from abstain.querylog import LogSettings, open_log

    qlog = open_log(server.pipeline.store)
    qlog.configure(LogSettings(enabled=True))
    try:
        server.pipeline.ask(REFUSED, workspace="docs")
        _open(browser, server, server.keys.admin)
        browser.find_element(By.CSS_SELECTOR, "#review summary").click()
        browser.find_element(By.ID, "review-load").click()
        WebDriverWait(browser, 30).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#review-table tbody tr"))
        row = browser.find_elements(By.CSS_SELECTOR, "#review-table tbody tr")[0]
        assert REFUSED in row.text
        row.find_element(By.CSS_SELECTOR, "button[data-expected='refuse']").click()
        WebDriverWait(browser, 30).until(
            lambda d: "labelled" in d.find_element(By.ID, "review-status").text)
        entry_id = int(row.get_attribute("data-id"))
        labelled = qlog.get("docs", entry_id)
        assert labelled is not None and labelled.expected == "refuse"
        assert "agrees" in row.get_attribute("class")
        browser.save_screenshot(str(artifacts / "web_review.png"))
    finally:
        qlog.configure(LogSettings(enabled=False))

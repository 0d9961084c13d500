"""`GET /metrics` (Prometheus) and the query-log review endpoints, on the real server."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("prometheus_client")
from prometheus_client.parser import text_string_to_metric_families

from abstain.querylog import LogSettings, open_log
from tests.server.conftest import Env
from tests.server.helpers import ANSWERED, REFUSED, bearer


def _metrics(env: Env) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = httpx.get(f"{env.url}/metrics", headers=bearer(env.keys.admin), timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(response.text)
            for s in family.samples}


def _ask(env: Env, question: str, *, stream: bool = False) -> None:
    path = "ask/stream" if stream else "ask"
    response = httpx.post(f"{env.url}/v1/workspaces/docs/{path}", headers=bearer(env.keys.docs),
                          json={"question": question}, timeout=30)
    assert response.status_code == 200


def _value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str,
           **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_count_questions_refusals_by_reason_and_answers_by_tier(server: Env) -> None:
    refusal = server.pipeline.ask(REFUSED, workspace="docs").refusal
    assert refusal is not None
    before = _metrics(server)
    _ask(server, REFUSED)
    _ask(server, REFUSED, stream=True)
    _ask(server, ANSWERED)
    after = _metrics(server)

    def delta(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert delta("abstain_questions_total", workspace="docs") == 3
    assert delta("abstain_refusals_total", workspace="docs", reason=refusal.reason) == 2
    assert sum(delta("abstain_answers_total", workspace="docs", triage=t)
               for t in ("confident", "uncertain", "no_match")) == 1
    assert delta("abstain_confidence_count", workspace="docs", decision="refused") == 2
    for stage in ("retrieve", "gate", "total"):
        assert delta("abstain_stage_latency_seconds_count", workspace="docs", stage=stage) == 3


def test_metrics_need_an_admin_key(server: Env) -> None:
    assert httpx.get(f"{server.url}/metrics", timeout=30).status_code == 401
    response = httpx.get(f"{server.url}/metrics", headers=bearer(server.keys.docs), timeout=30)
    assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"


@pytest.fixture
def logging_on(server: Env) -> Iterator[None]:
    qlog = open_log(server.pipeline.store)
    qlog.configure(LogSettings(enabled=True))
    yield
    qlog.configure(LogSettings(enabled=False))


@pytest.mark.usefixtures("logging_on")
def test_review_lists_and_labels_entries_with_an_admin_key(server: Env) -> None:
    _ask(server, REFUSED)
    url = f"{server.url}/v1/workspaces/docs/log"
    listed = httpx.get(url, params={"decision": "refused", "unlabelled": "true"},
                       headers=bearer(server.keys.admin), timeout=30).json()
    assert listed["enabled"] is True
    entry = listed["entries"][0]
    assert entry["question"] == REFUSED and entry["answered"] is False and entry["checks"]
    labelled = httpx.post(f"{url}/{entry['id']}/label", headers=bearer(server.keys.admin),
                          json={"expected": "refuse", "note": "not in the docs"}, timeout=30)
    assert labelled.status_code == 200, labelled.text
    assert labelled.json()["expected"] == "refuse" and labelled.json()["label_agrees"] is True
    # workspace keys may not review; other workspaces do not see the entry
    assert httpx.get(url, headers=bearer(server.keys.docs), timeout=30).status_code == 403
    other = httpx.post(f"{server.url}/v1/workspaces/other/log/{entry['id']}/label",
                       headers=bearer(server.keys.admin), json={"expected": "answer"},
                       timeout=30)
    assert other.status_code == 404

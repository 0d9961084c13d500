"""What a client sees of a document's source: the server's paths, or paths under a root, or
links (``abstain serve --source-root DIR --source-url TEMPLATE``)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from abstain.errors import ConfigError
from abstain.pipeline import Pipeline
from abstain.server import KeyStore, ServerConfig, ServerThread, create_app
from abstain.server.sources import SourceView
from abstain.stream import Event
from tests.conftest import SAMPLE_CORPUS
from tests.server.conftest import Keys
from tests.server.helpers import ANSWERED, bearer

LINKS = "https://docs.example.com/{path}"


def test_a_source_under_the_root_is_sent_relative_to_it_with_its_link() -> None:
    inside = str(SAMPLE_CORPUS.resolve() / "qa" / "reset admin.md")
    assert SourceView().answer_json({"source": inside}) == {"source": inside}  # as stored
    assert SourceView(str(SAMPLE_CORPUS)).shown({"source": inside}) == {
        "source": "qa/reset admin.md"}
    linked = SourceView(str(SAMPLE_CORPUS), LINKS)
    assert linked.shown({"source": inside}) == {
        "source": "qa/reset admin.md", "url": "https://docs.example.com/qa/reset%20admin.md"}
    assert linked.shown({"source": "faq.md"}) == {"source": "faq.md"}  # uploaded by name
    assert linked.shown({"source": "https://evil.example/x"}) == {  # no link from its text
        "source": "https://evil.example/x"}
    shown = linked.event(Event("meta", {"evidence": [{"source": inside, "n": 1}],
                                        "checks": [{"detail": f"named in {inside}"}]}))
    assert shown.data == {"evidence": [{"source": "qa/reset admin.md", "n": 1,
                                        "url": "https://docs.example.com/qa/reset%20admin.md"}],
                          "checks": [{"detail": "named in qa/reset admin.md"}]}


@pytest.mark.parametrize(("root", "url", "says"), [
    (None, LINKS, "needs a source root"),
    (str(SAMPLE_CORPUS), "https://docs.example.com/", "must hold {path}"),
    ("/no/such/folder", None, "is not a folder on this server"),
])
def test_a_url_template_without_a_root_or_a_path_is_a_clear_error(
        root: str | None, url: str | None, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        SourceView(root, url)


@pytest.fixture(scope="module")
def linked(corpus_pipeline: Pipeline, keystore: tuple[KeyStore, Keys]) -> Iterator[str]:
    store, _ = keystore
    config = ServerConfig(rate=0, sources=SourceView(str(SAMPLE_CORPUS), LINKS))
    with ServerThread(create_app(corpus_pipeline, keys=store, config=config)) as running:
        yield running.url


def test_every_answer_a_client_gets_names_its_sources_by_link(
        linked: str, keystore: tuple[KeyStore, Keys]) -> None:
    """JSON, the SSE stream and the chat API alike: sources relative to the root, each with
    its link; the server's paths appear nowhere."""
    _, keys = keystore
    headers = bearer(keys.docs)
    answer = httpx.post(f"{linked}/v1/workspaces/docs/ask", headers=headers,
                        json={"question": ANSWERED}, timeout=60).json()
    assert answer["answered"]
    links = {c["url"] for c in answer["citations"]} | {e["url"] for e in answer["evidence"]}
    assert links and all(s.startswith("https://docs.example.com/") for s in links)
    assert "https://docs.example.com/qa/reset-admin-password.md" in links
    assert {c["source"] for c in answer["citations"]} >= {"qa/reset-admin-password.md"}
    streamed = httpx.post(f"{linked}/v1/workspaces/docs/ask/stream", headers=headers,
                          json={"question": ANSWERED}, timeout=60).text
    chat = httpx.post(f"{linked}/v1/chat/completions", headers=headers, timeout=60,
                      json={"model": "docs",
                            "messages": [{"role": "user", "content": ANSWERED}]}).json()
    for text in (json.dumps(answer), streamed, json.dumps(chat)):
        assert str(SAMPLE_CORPUS) not in text
    assert "https://docs.example.com/qa/reset-admin-password.md" in streamed

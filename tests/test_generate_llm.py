"""The LLM path over real HTTP: a scripted OpenAI-compatible server, the real pipeline."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from abstain.answer import Answer
from abstain.embed.base import Embedder
from abstain.errors import ConfigError
from abstain.generate.extractive import ExtractiveGenerator
from abstain.generate.openai_chat import OpenAIChatGenerator, api_base
from abstain.rerank.llm import RerankConfig
from abstain.testing import Reply, ScriptedOpenAIServer, down_url
from abstain.verify.lexical import NOTE
from tests.llm_support import FABRICATED, FAITHFUL, KEYS_Q, OFF_TOPIC_Q, pipeline
from tests.reader_support import KeywordReader


def ask(kb: Path, minilm: Embedder, url: str, question: str = KEYS_Q, *,
        workspace: str | None = None, **options: object) -> Answer:
    gen_options = {k: options.pop(k) for k in ("timeout", "max_retries", "stream", "backoff")
                   if k in options}
    generator = OpenAIChatGenerator(url, "test-model", backoff=0.01, **gen_options)  # type: ignore[arg-type]
    with pipeline(kb, minilm, generator=generator, **options) as pipe:
        return pipe.ask(question, workspace=workspace)


def test_faithful_answer_passes(kb: Path, minilm: Embedder,
                                server: ScriptedOpenAIServer) -> None:
    server.script(FAITHFUL)
    answer = ask(kb, minilm, server.url)
    assert answer.answered, answer.refusal
    assert answer.text == ("API keys are rotated every 30 days. [1] Run qsctl keys rotate to "
                           "rotate them early. [1]")
    assert answer.unsupported_claims == ()
    assert answer.triage in ("confident", "uncertain")
    assert [(c.n, c.source, c.quote) for c in answer.citations] == [
        (1, "keys.md", "API keys are rotated every 30 days.")]
    assert answer.faithfulness is not None and answer.faithfulness >= 0.5
    assert answer.faithfulness_components["support"] == 1.0
    assert answer.generator == "openai:test-model" and answer.llm_called
    [call] = answer.llm_calls
    assert (call.purpose, call.model, call.outcome, call.attempts) == (
        "answer", "test-model", "ok", 1)
    assert call.prompt_tokens and call.completion_tokens and call.latency_ms > 0
    assert NOTE in answer.notes
    trail = answer.audit_trail()
    assert trail["llm_calls"][0]["purpose"] == "answer" and NOTE in trail["notes"]
    [request] = server.chat_requests
    assert request.body["model"] == "test-model" and request.body["logprobs"] is True
    assert "[1] API keys\nAPI keys are rotated every 30 days." in request.prompt


def test_fabricated_sentence_is_removed_and_listed(kb: Path, minilm: Embedder,
                                                   server: ScriptedOpenAIServer) -> None:
    server.script(f"API keys are rotated every 30 days [1]. {FABRICATED} [1]")
    answer = ask(kb, minilm, server.url)
    assert answer.answered
    assert answer.text == "API keys are rotated every 30 days. [1]"
    assert answer.unsupported_claims == (FABRICATED,)
    assert answer.triage == "verification_failed"
    assert answer.faithfulness_components["kept_share"] == 0.5
    support = next(c for c in answer.checks if c.name == "support")
    assert not support.passed and support.value == 1
    assert answer.to_json()["unsupported_claims"] == [FABRICATED]


def test_citation_to_a_chunk_not_retrieved_flips_triage(kb: Path, minilm: Embedder,
                                                        server: ScriptedOpenAIServer) -> None:
    server.script("API keys are rotated every 30 days [7].")
    answer = ask(kb, minilm, server.url)
    assert answer.triage == "verification_failed"
    citations = next(c for c in answer.checks if c.name == "citations")
    assert not citations.passed
    assert "[7] points at no retrieved source" in citations.detail
    assert "[7]" not in answer.text


def test_gate_refusal_never_calls_the_llm(kb: Path, minilm: Embedder,
                                          server: ScriptedOpenAIServer) -> None:
    answer = ask(kb, minilm, server.url, OFF_TOPIC_Q, rewrite_query=False, llm_rerank=True)
    assert not answer.answered and answer.refusal is not None
    assert answer.refusal.reason == "no_evidence"
    assert answer.llm_called is False and answer.llm_calls == ()
    assert server.requests == []


@pytest.mark.parametrize(("setup", "outcome", "attempts"), [
    ("down", "unreachable", 3),
    ("slow", "timeout", 1),
    ("malformed", "malformed", 1),
    ("http_500", "http_500", 3),
])
def test_server_failures_become_a_recorded_refusal(kb: Path, minilm: Embedder,
                                                   server: ScriptedOpenAIServer, setup: str,
                                                   outcome: str, attempts: int) -> None:
    url = down_url() if setup == "down" else server.url
    replies = {"slow": [Reply("late [1].", delay_s=1.5)],
               "malformed": [Reply(body='{"choices": [')],
               "http_500": [Reply(status=500)] * 3}
    server.script(*replies.get(setup, []))
    answer = ask(kb, minilm, url, timeout=0.5, max_retries=2)
    assert not answer.answered and answer.refusal is not None
    assert answer.refusal.reason == "llm_error"
    assert "language model could not be reached" in answer.refusal.message
    [call] = answer.llm_calls
    assert (call.purpose, call.outcome, call.attempts) == ("answer", outcome, attempts)
    assert call.error and call.error.startswith("LLM answer call failed")
    check = next(c for c in answer.checks if c.name == "generation")
    assert not check.passed and check.reason == "llm_error"
    assert answer.audit_trail()["llm_calls"][0]["outcome"] == outcome


def test_a_5xx_is_retried_with_backoff_then_answered(kb: Path, minilm: Embedder,
                                                     server: ScriptedOpenAIServer) -> None:
    server.script(Reply(status=503), Reply(status=429, headers={"retry-after": "0"}), FAITHFUL)
    answer = ask(kb, minilm, server.url)
    assert answer.answered
    assert answer.llm_calls[0].attempts == 3
    assert len(server.chat_requests) == 3


def test_logprobs_feed_the_faithfulness_score(kb: Path, minilm: Embedder,
                                              server: ScriptedOpenAIServer) -> None:
    server.script(Reply(FAITHFUL, logprob=-0.2))
    answer = ask(kb, minilm, server.url)
    components = answer.faithfulness_components
    assert components["generation_logprob"] == -0.2
    assert components["generation"] == pytest.approx(math.exp(-0.2), abs=1e-4)
    s, r, g = components["support"], components["retrieval"], components["generation"]
    assert s is not None and r is not None and g is not None
    assert answer.faithfulness == pytest.approx(0.5 * s + 0.3 * r + 0.2 * g, abs=1e-3)


def test_server_that_rejects_logprobs_is_asked_again_without(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script(Reply(status=400, body='{"error": "logprobs is not supported"}'), FAITHFUL,
                  FAITHFUL)
    generator = OpenAIChatGenerator(server.url, "test-model", backoff=0.01)
    with pipeline(kb, minilm, generator=generator) as pipe:
        answer, later = pipe.ask(KEYS_Q), pipe.ask(KEYS_Q)
    assert answer.answered and later.answered
    first, second, third = server.chat_requests
    assert first.body["logprobs"] is True and "logprobs" not in second.body
    assert "logprobs" not in third.body  # remembered ...
    note = f"{server.url}/chat/completions rejected logprobs (HTTP 400): answers are requested " \
           "without them, so faithfulness has no generation-confidence term"
    assert note in answer.notes and note in later.notes  # ... and said every time
    assert answer.faithfulness_components["generation"] is None


def test_token_counts_the_server_did_not_report_are_flagged_estimates(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script(FAITHFUL)
    reported = ask(kb, minilm, server.url)
    assert not reported.llm_calls[0].tokens_estimated
    body = ('{"choices": [{"message": {"role": "assistant", "content": '
            '"API keys are rotated every 30 days [1]."}}]}')
    server.script(Reply(body=body))
    estimated = ask(kb, minilm, server.url)
    [call] = estimated.llm_calls
    assert call.tokens_estimated and call.prompt_tokens and call.completion_tokens == 10
    assert estimated.audit_trail()["llm_calls"][0]["tokens_estimated"] is True


def test_streaming_transport_gives_the_same_answer(kb: Path, minilm: Embedder,
                                                   server: ScriptedOpenAIServer) -> None:
    server.script(Reply(FAITHFUL, logprob=-0.1))
    answer = ask(kb, minilm, server.url, stream=True)
    assert answer.text == ("API keys are rotated every 30 days. [1] Run qsctl keys rotate to "
                           "rotate them early. [1]")
    assert answer.faithfulness_components["generation_logprob"] == -0.1
    assert server.chat_requests[0].body["stream"] is True


def test_zero_hits_asks_a_clarifying_question(kb: Path, minilm: Embedder,
                                              server: ScriptedOpenAIServer) -> None:
    server.script("Which roadmap item do you mean?")
    answer = ask(kb, minilm, server.url, "What is planned next?", workspace="drafts",
                 clarify_on_empty=True)
    assert not answer.answered and answer.refusal is not None
    assert answer.refusal.reason == "no_evidence"
    assert answer.refusal.message.endswith("Which roadmap item do you mean?")
    assert [c.purpose for c in answer.llm_calls] == ["clarify"]
    assert "Sources" not in server.chat_requests[0].prompt


def test_zero_hits_with_a_failing_llm_keeps_the_plain_refusal(kb: Path,
                                                              minilm: Embedder) -> None:
    answer = ask(kb, minilm, down_url(), "What is planned next?", workspace="drafts",
                 max_retries=0, clarify_on_empty=True)
    assert answer.refusal is not None and answer.refusal.reason == "no_evidence"
    assert answer.llm_calls[0].outcome == "unreachable"
    assert any(n.startswith("clarify-only prompt failed") for n in answer.notes)


def test_zero_hits_refusal_never_calls_the_llm_by_default(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    answer = ask(kb, minilm, server.url, "What is planned next?", workspace="drafts")
    assert answer.refusal is not None and answer.refusal.reason == "no_evidence"
    assert answer.llm_called is False and answer.llm_calls == ()
    assert server.chat_requests == []


def test_a_clarifying_reply_becomes_a_refusal_that_carries_it(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script("Do you mean API keys or SSH keys?")
    answer = ask(kb, minilm, server.url)
    assert not answer.answered and answer.refusal is not None
    assert answer.refusal.reason == "needs_clarification"
    assert answer.refusal.suggestions == ("Do you mean API keys or SSH keys?",)


def test_query_rewrite_is_used_and_falls_back_when_it_fails(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script("api key rotation interval", FAITHFUL)
    answer = ask(kb, minilm, server.url, rewrite_query=True)
    assert answer.answered
    assert [c.purpose for c in answer.llm_calls] == ["rewrite", "answer"]
    assert "searched the rewritten query 'api key rotation interval'" in answer.notes

    server.script(Reply(status=404), FAITHFUL)
    answer = ask(kb, minilm, server.url, rewrite_query=True)
    assert answer.answered
    assert [(c.purpose, c.outcome) for c in answer.llm_calls] == [
        ("rewrite", "http_404"), ("answer", "ok")]
    assert any(n.startswith("query rewrite failed") for n in answer.notes)


def test_llm_rerank_grades_gates_and_falls_back(kb: Path, minilm: Embedder,
                                                server: ScriptedOpenAIServer) -> None:
    server.script("1: 3", FAITHFUL)
    answer = ask(kb, minilm, server.url, llm_rerank=True)
    assert answer.answered and answer.tier == "llm_rerank"
    assert answer.evidence[0].rerank_score == 3
    assert [c.purpose for c in answer.llm_calls] == ["rerank", "answer"]

    server.script("1: 1")
    answer = ask(kb, minilm, server.url, llm_rerank=True)
    assert answer.refusal is not None and answer.refusal.reason == "not_relevant"
    assert [c.purpose for c in answer.llm_calls] == ["rerank"]

    server.script(Reply("1: 3", delay_s=1.0), FAITHFUL)
    answer = ask(kb, minilm, server.url, llm_rerank=RerankConfig(timeout_s=0.3))
    assert answer.answered and answer.tier == "retrieval"
    assert answer.llm_calls[0].outcome == "timeout"
    assert any("gated on retrieval scores" in n for n in answer.notes)


def test_base_url_forms() -> None:
    assert api_base("http://localhost:8080") == "http://localhost:8080/v1"
    assert api_base("http://localhost:11434/v1/") == "http://localhost:11434/v1"
    assert api_base("https://example.test/openai/v1") == "https://example.test/openai/v1"
    for bad in ("notaurl", "localhost:11434", "ftp://host/v1", "http://"):
        with pytest.raises(ConfigError, match="is not an LLM base URL"):
            api_base(bad)


def test_embeddings_endpoint_serves_the_openai_embedder(server: ScriptedOpenAIServer) -> None:
    from abstain.embed.openai_http import OpenAIEmbedder

    embedder = OpenAIEmbedder(base_url=server.url, model="hash")
    vectors = embedder.embed_batch(["api keys", "backups"])
    assert vectors.shape == (2, embedder.dim)
    assert [r.path for r in server.requests] == ["/v1/embeddings", "/v1/embeddings"]


def test_an_llm_answer_without_the_asked_type_is_refused(kb: Path, minilm: Embedder,
                                                         server: ScriptedOpenAIServer) -> None:
    # Supported by the source, but "how often" asks for a number and none is given.
    server.script("Run qsctl keys rotate to rotate API keys early [1].")
    answer = ask(kb, minilm, server.url)
    assert not answer.answered
    assert answer.refusal is not None and answer.refusal.reason == "answer_type_missing"
    assert "number" in answer.refusal.message
    gate = next(c for c in answer.checks if c.name == "answer_type")
    assert gate.passed  # the evidence states the number; the generated answer does not
    check = next(c for c in answer.checks if c.name == "generated_answer_type")
    assert not check.passed and check.threshold == "number"
    assert answer.llm_called


def test_a_changed_fact_in_an_llm_answer_is_not_supported(kb: Path, minilm: Embedder,
                                                          server: ScriptedOpenAIServer) -> None:
    server.script("API keys are rotated every 30 weeks [1].")
    answer = ask(kb, minilm, server.url)
    assert not answer.answered
    assert answer.unsupported_claims == ("API keys are rotated every 30 weeks.",)



def test_an_llm_reads_the_answering_passage_first(tmp_path: Path, hashing: Embedder,
                                                  server: ScriptedOpenAIServer) -> None:
    """With the reader vetoing (the default), the extractive answerer keeps the retrieval
    order; an LLM generator gets the chunk holding the reader's answering window first."""
    docs = {"traffic.md": "# Replication traffic between nodes\n\nReplication traffic between "
                          "nodes is compressed, and replication traffic between nodes is "
                          "protected from loss by retries.\n",
            "security.md": "# Security\n\nAll traffic between nodes is encrypted with TLS.\n"}
    question = "How is replication traffic between nodes protected?"
    db = tmp_path / "order.db"
    reader = KeywordReader("TLS")
    with pipeline(db, hashing, generator=ExtractiveGenerator(), reader=reader) as pipe:
        for name, text in docs.items():
            pipe.ingest_text(text, source=name)
        quoted = pipe.ask(question)
    assert quoted.answered, quoted.refusal
    assert [e.document.source for e in quoted.evidence] == ["traffic.md", "security.md"]
    server.script("All traffic between nodes is encrypted with TLS [1].")
    generator = OpenAIChatGenerator(server.url, "test-model", backoff=0.01)
    with pipeline(db, hashing, generator=generator, reader=reader) as pipe:
        answer = pipe.ask(question)
    assert answer.answered, answer.refusal
    assert [e.document.source for e in answer.evidence] == ["security.md", "traffic.md"]
    assert [c.source for c in answer.citations] == ["security.md"]
    [request] = server.chat_requests
    assert request.prompt.index("[1] Security") < request.prompt.index("[2] Replication")

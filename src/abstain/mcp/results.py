"""What the MCP tools return: one structured value and the same thing as readable text.

An agent's model reads the text; a program reads ``structuredContent``, whose shapes are
the TypedDicts below (published as each tool's ``outputSchema``). A refusal is a normal
result of ``ask`` (``answered: false`` with the reason, message and suggestions), never a
tool error: a tool error means the call itself could not be made (unknown workspace,
empty question, a key without access).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from abstain.records import NOT_ABOUT_THE_DOCUMENTS, RefusalReason

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.retrieve import Retrieval
    from abstain.stores.base import DocumentInfo

QUOTE_CHARS = 300
"""A search hit's text is cut to this many characters in the readable text."""


class CitationResult(TypedDict):
    n: int
    source: str
    title: str
    quote: str


class RefusalResult(TypedDict):
    reason: str
    """Machine-readable: ``no_evidence``, ``unknown_entity``, ``low_confidence`` …"""
    message: str
    suggestions: list[str]
    missing: list[str]


class AskResult(TypedDict):
    question: str
    workspace: str
    answered: bool
    answer: str | None
    refusal: RefusalResult | None
    confidence: float
    triage: str
    language: str
    citations: list[CitationResult]


class SearchHit(TypedDict):
    n: int
    source: str
    title: str
    chunk_id: str
    text: str
    fused_score: float | None
    vector_rank: int | None
    keyword_rank: int | None


class SearchResult(TypedDict):
    question: str
    workspace: str
    hits: list[SearchHit]


class DocumentResult(TypedDict):
    id: str
    source: str
    title: str
    chunks: int
    updated_at: str


class DocumentsResult(TypedDict):
    workspace: str
    documents: list[DocumentResult]


def ask_result(answer: Answer) -> AskResult:
    refusal = answer.refusal
    return AskResult(
        question=answer.question, workspace=answer.workspace, answered=answer.answered,
        answer=answer.text if answer.answered else None,
        refusal=None if refusal is None else RefusalResult(
            reason=refusal.reason, message=refusal.message,
            suggestions=list(refusal.suggestions), missing=list(refusal.missing)),
        confidence=round(answer.confidence, 4), triage=answer.triage,
        language=answer.language,
        citations=[CitationResult(n=c.n, source=c.source, title=c.title, quote=c.quote)
                   for c in answer.citations])


def missing_label(reason: str) -> str:
    """What a refusal's ``missing`` words are: absent from every document for an unknown
    name, else absent from the passages found for the question (they may be elsewhere)."""
    return ("Not found in the documents" if reason == RefusalReason.UNKNOWN_ENTITY
            else "Not in the passages found for this question")


def ask_text(result: AskResult) -> str:
    """The answer with its numbered sources, or the refusal with what to try instead."""
    refusal = result["refusal"]
    if refusal is not None:
        lines = [f"REFUSED ({refusal['reason']}): {refusal['message']}"]
        if refusal["reason"] not in NOT_ABOUT_THE_DOCUMENTS:  # not the LLM, not the question
            lines.append("The documents do not support an answer; do not answer from memory.")
        if refusal["missing"]:
            lines.append(missing_label(refusal["reason"]) + ": " + ", ".join(refusal["missing"]))
        if refusal["suggestions"]:
            lines.append("Suggestions:")
            lines += [f"- {s}" for s in refusal["suggestions"]]
        return "\n".join(lines)
    lines = [result["answer"] or "", "",
             f"Confidence {result['confidence']:.2f} ({result['triage']}). Sources:"]
    quotes: dict[int, list[str]] = {}
    for c in result["citations"]:
        if c["n"] not in quotes:
            title = f"{c['title']} — " if c["title"] else ""
            lines.append(f"[{c['n']}] {title}{c['source']}")
            quotes[c["n"]] = []
        quote = " ".join(c["quote"].split())
        if quote not in quotes[c["n"]]:
            quotes[c["n"]].append(quote)
            lines.append(f'    "{quote}"')
    return "\n".join(lines)


def search_result(question: str, workspace: str, retrieval: Retrieval) -> SearchResult:
    hits = []
    for n, ev in enumerate(retrieval.evidence, start=1):
        h = ev.hit
        hits.append(SearchHit(
            n=n, source=ev.source, title=ev.document.title, chunk_id=ev.chunk.id,
            text=ev.text, fused_score=round(h.fused_score, 6),
            vector_rank=h.vector_rank, keyword_rank=h.keyword_rank))
    return SearchResult(question=question, workspace=workspace, hits=hits)


def search_text(result: SearchResult) -> str:
    if not result["hits"]:
        return f"No passages in workspace {result['workspace']!r} match the question."
    lines = ["Evidence for the question (fused keyword + vector search, best first; "
             "evidence only, not an answer — use `ask` for a checked answer):"]
    for h in result["hits"]:
        text = " ".join(h["text"].split())
        cut = f"{text[:QUOTE_CHARS]}…" if len(text) > QUOTE_CHARS else text
        arms = "+".join(a for a, r in (("vector", h["vector_rank"]),
                                       ("keyword", h["keyword_rank"])) if r is not None)
        lines.append(f"[{h['n']}] {h['title']} — {h['source']} ({arms}): {cut}")
    return "\n".join(lines)


def documents_result(workspace: str, rows: list[DocumentInfo]) -> DocumentsResult:
    return DocumentsResult(workspace=workspace, documents=[
        DocumentResult(id=r.id, source=r.source, title=r.title, chunks=r.chunks,
                       updated_at=r.updated_at) for r in rows])


def documents_text(result: DocumentsResult) -> str:
    docs = result["documents"]
    if not docs:
        return f"Workspace {result['workspace']!r} holds no documents."
    lines = [f"{len(docs)} document(s) in workspace {result['workspace']!r}:"]
    lines += [f"- {d['source']} — {d['title']} ({d['chunks']} chunks, id {d['id']})"
              for d in docs]
    return "\n".join(lines)

"""Optional LLM query rewrite: turn a message into the query retrieval searches with.

It degrades instead of failing, and says so: a failed or unusable rewrite falls
back to the raw question; the call is in the audit trail and a note names the
fallback.
"""

from __future__ import annotations

from dataclasses import dataclass

from abstain.errors import LLMError
from abstain.generate.base import ChatModel
from abstain.generate.prompts import parse_rewrite, rewrite_messages
from abstain.records import LLMCall, Stage
from abstain.trace import Trace


@dataclass(frozen=True, slots=True)
class Rewrite:
    query: str
    """The text retrieval searches with (the raw question on fallback)."""
    calls: tuple[LLMCall, ...]
    note: str | None


def rewrite_query(model: ChatModel, question: str) -> Rewrite:
    try:
        result = model.chat(rewrite_messages(question), purpose="rewrite", max_tokens=64)
    except LLMError as exc:
        return Rewrite(question, exc.calls, f"query rewrite failed ({exc}); searched the raw "
                                            "question")
    query = parse_rewrite(result.text, question)
    if query is None:
        return Rewrite(question, (result.call,), "query rewrite returned nothing usable; "
                                                 "searched the raw question")
    return Rewrite(query, (result.call,), f"searched the rewritten query {query!r}")


def rewrite(trace: Trace, model: ChatModel) -> Trace:
    """The rewrite stage: retrieval searches the rewritten query (or, on fallback, the
    question); an ended trace passes through."""
    if trace.ended:
        return trace
    result = rewrite_query(model, trace.text)
    notes = (result.note,) if result.note else ()
    return trace.then(Stage("rewrite", calls=result.calls, notes=notes), query=result.query)

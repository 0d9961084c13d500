"""What every framework adapter shares: the gate's evidence, or :class:`Refused`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from abstain.answer import Answer
from abstain.errors import AbstainError, ConfigError
from abstain.trace import answer_of

if TYPE_CHECKING:
    from abstain.evidence import Evidence
    from abstain.pipeline import Pipeline


class Refused(AbstainError):
    """The documents do not answer the question: raised by the adapters' *retrievers*.

    A retriever's contract (return documents) has no room for "no answer here", and an
    empty list would let the framework's LLM answer from nothing. So the refusal is raised,
    carrying the refused :class:`~abstain.answer.Answer`: ``reason``, ``message``,
    ``suggestions`` and ``missing`` are its refusal's. (The answering adapters return the
    Answer instead.)
    """

    def __init__(self, answer: Answer) -> None:
        assert answer.refusal is not None, "only a refused answer is a refusal"
        refusal = answer.refusal
        # what an agent reads when the tool hands it the refusal: the suggestions too
        text = f"{refusal.reason}: {refusal.message}"
        super().__init__(f"{text} {refusal.did_you_mean}" if refusal.did_you_mean else text)
        self.answer = answer
        self.reason = refusal.reason
        self.message = refusal.message
        self.suggestions = refusal.suggestions
        self.missing = refusal.missing

    def __reduce__(self) -> tuple[type[Refused], tuple[Answer]]:
        """Rebuilt from the Answer, not from ``args`` (the message) as an exception is by
        default: pickling (multiprocessing, a framework's worker) and ``copy`` need it."""
        return type(self), (self.answer,)


def checked_pipeline(pipeline: object) -> Pipeline:
    """``pipeline`` if it is an abstain :class:`~abstain.Pipeline`, else a ConfigError that
    says how to make one: an adapter handed a path or a store fails where it is built, not
    at its first question."""
    from abstain.pipeline import Pipeline

    if not isinstance(pipeline, Pipeline):
        raise ConfigError(f"pipeline must be an abstain.Pipeline (e.g. abstain.Pipeline.preset("
                          f"'balanced', store=PATH_OR_URL)), not {pipeline!r}")
    return pipeline


def checked_workspace(workspace: object) -> str | None:
    """``workspace`` if it is None (the pipeline's own) or a valid workspace name, else the
    InputError ``Pipeline.ask`` would raise at the first question, raised where the adapter
    is built (as a wrong pipeline is)."""
    from abstain.errors import InputError
    from abstain.stores.base import check_workspace

    if workspace is None:
        return None
    if not isinstance(workspace, str):
        raise InputError(f"the workspace must be a string, not {type(workspace).__name__}")
    return check_workspace(workspace)


def gated_evidence(pipe: Pipeline, question: str, workspace: str | None = None
                   ) -> tuple[Evidence, ...]:
    """The evidence the gate keeps for ``question`` (validate -> retrieve -> score -> gate,
    :meth:`Pipeline.gate_question`), or :class:`Refused` when the gate refuses (the refusal
    is observed: logged and, when on, recorded in the query log). The question and the
    workspace are checked as ``Pipeline.ask`` checks them: a non-string question or an
    invalid workspace name (``""`` included) is an InputError, None the pipeline's own."""
    trace = pipe.gate_question(question, workspace)
    if trace.ended:
        raise Refused(pipe.observe(answer_of(trace)))
    return trace.evidence


READER_METADATA = ("source", "title", "heading_path")
"""The metadata that helps whoever reads a passage (an LLM's prompt, an embedding): where it
comes from. The rest of :func:`evidence_metadata` (ids, scores, ``n``) is for programs, and
in a prompt it is noise the LLM may quote."""


def evidence_metadata(ev: Evidence, n: int) -> dict[str, Any]:
    """A source's metadata in the frameworks' documents: where it comes from, its scores;
    ``n`` is its number in the evidence (an answer's citation ``[n]``)."""
    return {"n": n, "source": ev.source, "title": ev.document.title, "chunk_id": ev.chunk.id,
            "document_id": ev.document.id, "heading_path": list(ev.chunk.heading_path),
            "fused_score": ev.hit.fused_score, "confidence": ev.confidence}


def relevance(ev: Evidence) -> float:
    """How well the passage by itself supports the question, 0 to 1: its confidence (0–100,
    :mod:`abstain.score`) / 100. The score a framework sorts and cuts nodes by: a cutoff
    such as LlamaIndex's ``SimilarityPostprocessor(similarity_cutoff=0.5)`` means something
    on it, whereas the fused RRF score (``fused_score``, about 0.03 at best) is a rank and
    would fail any such cutoff."""
    assert ev.confidence is not None, "the score stage gives every piece of evidence one"
    return ev.confidence / 100


def answer_metadata(answer: Answer) -> dict[str, Any]:
    """The Answer as frameworks carry it in a response's metadata (``Answer.to_json``
    without the evidence, which the frameworks carry as their own documents)."""
    payload = answer.to_json()
    payload.pop("evidence")
    return payload

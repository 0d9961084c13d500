"""The gate check *answerability*: refuse when the best evidence does not answer the question.

Plugged into the gate through its ``rules`` seam; the check is reported as
``rule:answerability`` with the best score as its value and reason ``unanswerable``.
"""

from __future__ import annotations

from abstain.answer import Check
from abstain.errors import ConfigError
from abstain.gate import GateInput, Rule
from abstain.rerank import DEFAULT_RERANK_DEPTH, Reranker

DEFAULT_THRESHOLD = 0.3
"""Probability from the shipped reader below which the gate refuses (see docs/MODEL_CARD.md)."""
REASON = "unanswerable"


def answerability_rule(reader: Reranker, threshold: float = DEFAULT_THRESHOLD, *,
                       depth: int = DEFAULT_RERANK_DEPTH, reuse_rerank_scores: bool = True
                       ) -> Rule:
    """A gate rule scoring the top ``depth`` kept chunks; the best must reach ``threshold``.

    With ``reuse_rerank_scores`` (the pipeline sets it when ``reader`` is also its
    reranker) the scores already on ``Evidence.rerank_score`` are used, so the
    model runs once per question.
    """
    if not 0 <= threshold <= 1:
        raise ConfigError("the answerability threshold is a probability in [0, 1]")

    def rule(data: GateInput) -> Check | None:
        evidence = data.evidence[:depth]
        if not evidence:
            return None  # the gate's own "evidence" check already refuses
        cached = [e.rerank_score for e in evidence]
        if reuse_rerank_scores and all(s is not None for s in cached):
            scores = [float(s) for s in cached if s is not None]
            source = "rerank scores"
        else:
            scores = reader.score(data.question, [e.text for e in evidence])
            source = reader.name
        best = max(scores)
        return Check("answerability", best >= threshold, round(best, 4), threshold,
                     f"best of {len(scores)} evidence chunks ({source})", REASON)

    return rule


def reading_stages(reader: bool | Reranker, reranker: Reranker | None,
                   threshold: float | None) -> tuple[Reranker | None, list[tuple[str, Rule]]]:
    """What ``Pipeline(reader=..., reranker=...)`` adds: the reranker and the gate rules.

    ``reader=True`` loads the shipped model; it reranks (unless another reranker is
    given) and adds the answerability check. ``reader=False`` adds nothing.
    """
    if reader is False:
        return reranker, []
    if reader is True:
        from abstain.rerank.reader import shared_reader

        model: Reranker = shared_reader()
    else:
        model = reader
    chosen = reranker or model
    rule = answerability_rule(model, DEFAULT_THRESHOLD if threshold is None else threshold,
                              reuse_rerank_scores=chosen is model)
    return chosen, [("answerability", rule)]

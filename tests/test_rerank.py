"""The shipped reader (int8 ONNX, no torch): reranking, answerability gate check, support."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from abstain.answer import Answer
from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
from abstain.pipeline import Pipeline
from abstain.rerank import Reranker, rerank
from abstain.rerank.answerability import (
    DEFAULT_THRESHOLD,
    REASON,
    answerability_rule,
    reading_stages,
)
from abstain.rerank.reader import MODEL_NAME, OnnxReader, model_file, shared_reader
from abstain.rerank.support import ReaderSupport
from abstain.stores.sqlite import SQLiteStore
from abstain.verify import Verifier

PORT = "Replication traffic uses TCP port 7400 between the primary and each replica."
WEATHER = "The office kitchen is cleaned every Friday afternoon by the facilities team."


@pytest.fixture(scope="module")
def reader() -> OnnxReader:
    return shared_reader()


def _evidence(texts: list[str]) -> list[Evidence]:
    doc = Document("d", "default", "d.md", "D", "h")
    return [Evidence(FusedHit(f"c{i}", 1.0 - i / 10), Chunk(f"c{i}", "d", ChunkKind.CHILD, t, i),
                     doc, t) for i, t in enumerate(texts)]


def test_shipped_model_file() -> None:
    path = model_file()
    assert path.name == f"{MODEL_NAME}.onnx"
    assert path.stat().st_size <= 25_000_000


def test_reader_scores_answering_text_higher(reader: OnnxReader) -> None:
    assert isinstance(reader, Reranker)
    scores = reader.score("Which port does replication use?", [WEATHER, PORT])
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores[1] > scores[0] + 0.2
    assert reader.score("anything", []) == []
    assert reader.logits([], []).shape == (0, 2)


def test_rerank_reorders_and_records_scores(reader: OnnxReader) -> None:
    ranked = rerank(reader, "Which port does replication use?", _evidence([WEATHER, PORT, "x"]),
                    depth=2)
    assert [e.chunk_id for e in ranked] == ["c1", "c0", "c2"]
    assert ranked[0].rerank_score is not None and ranked[2].rerank_score is None
    assert ranked[0].to_json()["rerank_score"] == pytest.approx(ranked[0].rerank_score, abs=1e-6)


def test_support_scorer_is_a_verifier(reader: OnnxReader) -> None:
    support = ReaderSupport(reader)
    assert isinstance(support, Verifier)
    good = support.check("Replication uses port 7400.", [WEATHER, PORT])
    bad = support.check("Replication uses port 9100.", [WEATHER, PORT])
    assert good > bad
    assert support.check("", [PORT]) == 0.0 and support.check("x", []) == 0.0


def test_reading_stages() -> None:
    assert reading_stages(False, None, None) == (None, [])
    with pytest.raises(ValueError):
        answerability_rule(shared_reader(), 1.5)


def _ask_with_reader(db: Path, embedder: object, threshold: float | None) -> Answer:
    with Pipeline(SQLiteStore(db), embedder, reader=True,  # type: ignore[arg-type]
                  answerability_threshold=threshold) as pipe:
        if not pipe.store.list_documents():
            pipe.ingest_text(f"# Replication\n\n{PORT}\n\n# Kitchen\n\n{WEATHER}\n",
                             source="ops.md")
        return pipe.ask("Which TCP port does replication traffic use?")


def test_pipeline_with_reader_reranks_and_gates_on_the_best_score(tmp_path: Path,
                                                                  hashing: object) -> None:
    answer = _ask_with_reader(tmp_path / "r.db", hashing, None)
    check = next(c for c in answer.checks if c.name == "rule:answerability")
    assert answer.answered, answer.refusal
    assert answer.tier == "reranker" and "rerank_ms" in answer.timings_ms
    assert answer.evidence[0].text == PORT  # the reader put the answering chunk first
    best = max(e.rerank_score or 0.0 for e in answer.evidence)
    assert check.value == round(best, 4) and check.threshold == DEFAULT_THRESHOLD
    assert check.value > DEFAULT_THRESHOLD
    assert answer.audit_trail()["evidence"][0]["rerank_score"] == pytest.approx(best)

    # The same question with the bar just above its best score is refused, for that reason.
    refused = _ask_with_reader(tmp_path / "r.db", hashing, min(1.0, float(check.value) + 1e-3))
    assert refused.refusal is not None and refused.refusal.reason == REASON
    assert [c.name for c in refused.checks if not c.passed] == ["rule:answerability"]


def test_preset_suffix_enables_reader(tmp_path: Path) -> None:
    with Pipeline.preset("balanced+reader", store=str(tmp_path / "p.db")) as pipe:
        assert pipe.reranker is shared_reader()
        assert [name for name, _ in pipe.gate.rules] == ["answerability"]
    from abstain.errors import ConfigError

    with pytest.raises(ConfigError, match="reader"):
        Pipeline.preset("balanced+nope", store=str(tmp_path / "q.db"))


def test_hub_loader_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from abstain.errors import MissingDependency
    from abstain.rerank.hub import HubCrossEncoder

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependency, match=r"abstain\[train\]"):
        HubCrossEncoder("any/model")


def test_hub_models_read_a_named_class_or_say_which_is_missing() -> None:
    from abstain.errors import ConfigError
    from abstain.rerank.hub import positive_class

    nli = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}
    assert positive_class({0: "LABEL_0"}, None, "m") is None  # one logit: its sigmoid
    assert positive_class(nli, None, "m") == 1
    assert positive_class({0: "LABEL_0", 1: "LABEL_1"}, None, "m") == 1
    assert positive_class({0: "a", 1: "b", 2: "c"}, 2, "m") == 2
    with pytest.raises(ConfigError, match=r"m has 3 classes \(0=a, 1=b, 2=c\) and none is "
                                          r"labelled entailment: pass positive="):
        positive_class({0: "a", 1: "b", 2: "c"}, None, "m")
    with pytest.raises(ConfigError, match="positive=5 is not one of them"):
        positive_class(nli, 5, "m")

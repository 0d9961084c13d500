"""Hub models behind the reranker / support seams, on a tiny BERT built here (no network)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from abstain.rerank import Reranker, rerank  # noqa: E402
from abstain.rerank.hub import HubCrossEncoder, HubSupport  # noqa: E402

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "what", "is", "the", "port", "of",
         "replication", "uses", "7000", "weather", "mild", ".", "?"]


def _tiny_model(folder: Path, labels: dict[int, str]) -> Path:
    torch.manual_seed(0)
    (folder / "vocab.txt").parent.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(folder / "vocab.txt"))
    config = transformers.BertConfig(vocab_size=len(VOCAB), hidden_size=8, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=16,
                                     max_position_embeddings=64, num_labels=len(labels),
                                     id2label=labels, label2id={v: k for k, v in labels.items()})
    model = transformers.BertForSequenceClassification(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_cross_encoder_scores_pairs(tmp_path: Path) -> None:
    encoder = HubCrossEncoder(_tiny_model(tmp_path / "ce", {0: "LABEL_0"}))
    assert isinstance(encoder, Reranker)
    texts = ["replication uses port 7000 .", "the weather is mild ."]
    scores = encoder.score("what is the port of replication ?", texts)
    assert len(scores) == 2 and all(0.0 <= s <= 1.0 for s in scores)
    assert encoder.score("what ?", []) == []
    assert scores == encoder.score("what is the port of replication ?", texts)


def test_nli_model_as_support_scorer(tmp_path: Path) -> None:
    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    support = HubSupport(_tiny_model(tmp_path / "nli", labels))
    assert support.positive == 1
    value = support.check("replication uses port 7000 .", ["the weather is mild .",
                                                           "replication uses port 7000 ."])
    assert 0.0 <= value <= 1.0
    assert support.check("anything", []) == 0.0


def test_rerank_orders_by_hub_scores(tmp_path: Path) -> None:
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit

    encoder = HubCrossEncoder(_tiny_model(tmp_path / "ce2", {0: "LABEL_0"}))
    doc = Document("d", "default", "d.md", "D", "h")
    evidence = [Evidence(FusedHit(f"c{i}", 0.1 - i / 100), Chunk(f"c{i}", "d", ChunkKind.CHILD,
                                                                  text, i), doc, text)
                for i, text in enumerate(["the weather is mild .", "replication uses port 7000 ."])]
    scores = encoder.score("what is the port ?", [e.text for e in evidence])
    ranked = rerank(encoder, "what is the port ?", evidence)
    assert [e.rerank_score for e in ranked] == sorted(scores, reverse=True)

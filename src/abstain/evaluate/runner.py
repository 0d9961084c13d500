"""Ask labelled questions through the real pipeline and record every signal.

Each question goes through :meth:`Pipeline.ask` unchanged. A recording
retriever (a :class:`Retriever` that keeps its last result) lets the harness
also see what the gate saw before the chunk filter: every fused chunk with its
ranks, scores and chunk confidence, and each arm's document ranking.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from abstain.answer import Answer
from abstain.confidence import chunk_confidence, term_coverage
from abstain.embed.base import embed_texts
from abstain.evaluate.data import CollectionDoc, LabelledQuestion
from abstain.evaluate.records import CheckValue, ChunkSignal, QuestionRecord, _num
from abstain.evidence import ArmHit, ChunkKind
from abstain.fuse import rrf
from abstain.gate import curated_match
from abstain.generate.extractive import quotes_agree
from abstain.ingest import document_id, embedding_text, text_hash
from abstain.ingest.blocks import ParsedDocument
from abstain.ingest.chunk import chunk_document
from abstain.ingest.parse import parse_string
from abstain.pipeline import Pipeline
from abstain.query import KeywordQuery
from abstain.question import Question
from abstain.rerank.reader import sigmoid
from abstain.rerank.reading import ANSWERS_HEAD, PairLogits
from abstain.retrieve import Retrieval, Retriever
from abstain.text import content_words

Progress = Callable[[int], None]
QUOTE_AGREE = "quote_agree"
"""Whether the reader's windows and word overlap's quote share a sentence
(:func:`abstain.generate.extractive.quotes_agree`), recorded for fitting (``bench/``)."""
ANSWER_READ = "answer_read"
"""With a reader: the record's feature holding the reader's P(answers) of the quoted answer
(:func:`answer_read`), for fitting the answer confidence (``bench/``)."""


class RecordingRetriever(Retriever):
    """A retriever that remembers the last :class:`Retrieval` it returned."""

    last: Retrieval | None = None

    def retrieve(self, question: str, *, workspace: str, top_k: int | None = None,
                 check_workspace: bool = True, keyword_top: int = 0,
                 keywords: KeywordQuery | None = None) -> Retrieval:
        result = super().retrieve(question, workspace=workspace, top_k=top_k,
                                  check_workspace=check_workspace, keyword_top=keyword_top,
                                  keywords=keywords)
        self.last = result
        return result


def attach_recorder(pipe: Pipeline) -> RecordingRetriever:
    if isinstance(pipe.retriever, RecordingRetriever):
        return pipe.retriever
    recorder = RecordingRetriever(pipe.store, pipe.embedder, pipe.retrieval)
    pipe.retriever.close()
    pipe.retriever = recorder
    return recorder


def ingest_collection(pipe: Pipeline, docs: Sequence[CollectionDoc],
                      progress: Progress | None = None, batch: int = 256) -> int:
    """Ingest a benchmark's documents (unchanged ones are skipped); returns how many were new.

    Passages are embedded in large batches first (the store's vector cache then serves the
    per-document ingest), which is much faster than one small batch per document.
    """
    added = 0
    for start in range(0, len(docs), batch):
        _prewarm(pipe, docs[start:start + batch])
        for doc in docs[start:start + batch]:
            report = pipe.ingest_text(doc.text, source=doc.source, fmt="txt", title=doc.title)
            added += len(report.added) + len(report.updated)
            if progress is not None:
                progress(1)
    return added


def _prewarm(pipe: Pipeline, docs: Sequence[CollectionDoc]) -> None:
    """Embed the searchable passages of new documents into the store's vector cache."""
    texts: dict[str, str] = {}
    for doc in docs:
        if pipe.store.document_hash(pipe.workspace, doc.source) is not None:
            continue
        parsed = parse_string(doc.text, name=doc.title or doc.source, fmt="txt")
        title = doc.title or parsed.title
        parsed = ParsedDocument(title, parsed.sections, parsed.metadata)
        for chunk in chunk_document(document_id(pipe.workspace, doc.source), parsed,
                                    pipe.chunking):
            if chunk.kind is not ChunkKind.PARENT:
                text = embedding_text(title, chunk)
                texts[text_hash(text)] = text
    if not texts:
        return
    cached = pipe.store.cached_vectors(pipe.embedder.name, list(texts))
    missing = [h for h in texts if h not in cached]
    if missing:
        vectors = embed_texts(pipe.embedder, [texts[h] for h in missing])
        pipe.store.cache_vectors(pipe.embedder.name, dict(zip(missing, vectors, strict=True)))


def run_questions(pipe: Pipeline, questions: Sequence[LabelledQuestion], *,
                  progress: Progress | None = None) -> list[QuestionRecord]:
    recorder = attach_recorder(pipe)
    records: list[QuestionRecord] = []
    for item in questions:
        recorder.last = None
        started = time.perf_counter()
        try:
            answer = pipe.ask(item.question)
            error = None
        except Exception as exc:  # a failing question is recorded, the run goes on
            answer, error = None, f"{type(exc).__name__}: {exc}"
        latency = (time.perf_counter() - started) * 1000
        records.append(_record(pipe, item, answer, recorder.last, latency, error))
        if progress is not None:
            progress(1)
    return records


def _record(pipe: Pipeline, item: LabelledQuestion, answer: Answer | None,
            retrieval: Retrieval | None, latency: float, error: str | None) -> QuestionRecord:
    ceiling = pipe.gate.thresholds.distance_ceiling
    chunks: tuple[ChunkSignal, ...] = ()
    rankings: dict[str, tuple[str, ...]] = {}
    coverage = 0.0
    if retrieval is not None:
        chunks = tuple(
            ChunkSignal(e.source, e.document.title, e.hit.fused_score, e.hit.vector_rank,
                        e.hit.vector_distance, e.hit.keyword_rank, e.hit.keyword_score,
                        chunk_confidence(e.hit.vector_distance, ceiling), e.document.curated)
            for e in retrieval.evidence)
        coverage = term_coverage(content_words(item.question), retrieval.evidence)[0]
        if item.gold_sources:
            rankings = _rankings(pipe, retrieval)
    if answer is None:
        return QuestionRecord(item, False, "error", 0.0, {}, (), chunks, rankings, coverage,
                              latency_ms=latency, error=error)
    checks = tuple(CheckValue(c.name, c.passed, _num(c.value), _num(c.threshold), c.reason)
                   for c in answer.checks)
    features = dict(answer.features)
    if pipe.reader is not None and answer.answered and answer.sentences:
        features[ANSWER_READ] = answer_read(pipe.reader, answer)
        features[QUOTE_AGREE] = quotes_agree(Question.parse(answer.question), answer.evidence)
    return QuestionRecord(
        item=item, answered=answer.answered,
        reason=answer.refusal.reason if answer.refusal else None,
        confidence=float(answer.confidence), features=features, checks=checks,
        chunks=chunks, rankings=rankings, retrieved_coverage=coverage,
        curated=curated_match(answer.question, answer.evidence)
        and any(c.name == "evidence" and c.passed for c in answer.checks),
        cited_sources=tuple(dict.fromkeys(c.source for c in answer.citations)),
        answer_text=answer.text, latency_ms=latency)


def answer_read(reader: PairLogits, answer: Answer) -> float:
    """The reader's P(answers) of the answer as quoted (its sentences, without their
    markers: as the extractive answerer reads its quotes)."""
    text = " ".join(s.text for s in answer.sentences)
    logits = reader.logits([answer.question], [text])
    return round(sigmoid(float(logits[0, ANSWERS_HEAD])), 4)


def _rankings(pipe: Pipeline, retrieval: Retrieval) -> dict[str, tuple[str, ...]]:
    """Document-level rankings of each arm and of their fusion, at the arms' full depth."""
    vector, keyword = list(retrieval.vector_hits), list(retrieval.keyword_hits)
    fused = rrf(vector, keyword, k=pipe.retrieval.rrf_k)
    ids = {h.chunk_id for h in (*vector, *keyword)}
    stored = pipe.store.get_chunks(sorted(ids))
    source = {cid: s.document.source for cid, s in stored.items()}

    def docs(chunk_ids: list[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(source[c] for c in chunk_ids if c in source))

    return {"vector": docs(_ids(vector)), "keyword": docs(_ids(keyword)),
            "hybrid": docs([f.chunk_id for f in fused])}


def _ids(hits: list[ArmHit]) -> list[str]:
    return [h.chunk_id for h in hits]

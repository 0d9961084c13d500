"""One evaluation run: pick the questions, open the pipeline, ingest if needed, ask, record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abstain.answer_confidence import AnswerConfidence
from abstain.confidence import Calibration
from abstain.config import RetrievalConfig, Settings
from abstain.evaluate.data import LabelledQuestion, LineProblem, read_jsonl, repeated, select
from abstain.evaluate.loaders import load_dataset
from abstain.evaluate.records import QuestionRecord, is_gold
from abstain.evaluate.runner import ingest_collection, run_questions
from abstain.ingest.chunk import ChunkingConfig

if TYPE_CHECKING:
    from abstain.rerank.reading import PairLogits

SCIFACT_CANDIDATES = 300
WHOLE_DOCUMENT = ChunkingConfig(parent_chars=12_000, child_chars=12_000)
"""SciFact abstracts are indexed whole, as BEIR does (the embedder truncates at 256 tokens)."""


@dataclass(frozen=True, slots=True)
class RunSpec:
    data: str | None = None
    """A labelled JSONL file, asked against the store as it is."""
    dataset: str | None = None
    """A built-in set; its collection is ingested into the store first."""
    data_dir: str | None = None
    settings: Settings = field(default_factory=Settings)
    preset: str = "balanced"
    calibration: Calibration | None = None
    answer_confidence: AnswerConfidence | None = None
    """The answer confidence the gate decides on (None: the shipped one)."""
    categories: tuple[str, ...] = ()
    """Only questions of these categories (all when empty)."""
    limit: int | None = None
    sample: bool = False
    seed: int = 0
    candidates: int | None = None
    reader: bool | PairLogits | None = None
    """None: the pipeline's default (abstain's reader reads and vetoes); True, or a reader of
    its own: it reads and its reading decides (the preset's ``+reader`` thresholds); False:
    nothing is read."""
    record_all_confidences: bool = False
    """Disable only the calibrated-confidence check (for `calibrate`): every other decision,
    including generation, is then observed for every question."""
    answer_all: bool = False
    """Run every check but refuse on none (:mod:`abstain.evaluate.answer_all`): each record
    holds the checks' verdicts and the answer the pipeline would have given."""


@dataclass(frozen=True, slots=True)
class Run:
    name: str
    records: list[QuestionRecord]
    problems: tuple[LineProblem, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)


def default_store(dataset: str, embedder: str | None) -> str:
    """Where a built-in set's collection goes when no --db / --store is given."""
    from platformdirs import user_cache_dir

    folder = Path(user_cache_dir("abstain", appauthor=False)) / "eval"
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / f"{dataset}-{(embedder or 'minilm').split(':')[0]}.db")


def unknown_gold_sources(questions: Sequence[LabelledQuestion], stored: Sequence[str]
                         ) -> list[str]:
    """The labels' gold sources that name no stored document: an answer citing the right
    page would be judged wrong against them (a typo, or a path of another layout)."""
    named = {g for q in questions for g in q.gold_sources}
    return sorted(g for g in named if not any(is_gold(s, [g]) for s in stored))


def execute(spec: RunSpec, *, progress: bool = True) -> Run:
    from abstain.pipeline import Pipeline
    from abstain.pipeline_options import GateOptions, ObservationOptions, ReadingOptions
    from abstain.presets import Preset

    if (spec.data is None) == (spec.dataset is None):
        raise ValueError("give either a labelled JSONL file or --dataset, not both")
    problems: tuple[LineProblem, ...] = ()
    collection: Sequence[Any] = ()
    if spec.data is not None:
        labelled = read_jsonl(spec.data)
        questions, problems, name = labelled.questions, labelled.problems, labelled.name
        protocol = "labelled JSONL asked against the store as it is"
    else:
        assert spec.dataset is not None
        ds = load_dataset(spec.dataset, spec.data_dir)
        questions, collection, name, protocol = ds.questions, ds.collection, ds.name, ds.protocol
    if spec.categories:
        questions = tuple(q for q in questions if q.category in spec.categories)
    chosen = select(questions, spec.limit, sample=spec.sample, seed=spec.seed)
    preset, plus = Preset.parse(spec.preset)
    decides = plus or (spec.reader is not None and spec.reader is not False)
    thresholds = preset.thresholds(reading_decides=decides)
    if spec.record_all_confidences:
        thresholds = replace(thresholds, min_confidence=0.0)
    candidates = spec.candidates or (SCIFACT_CANDIDATES if spec.dataset == "scifact" else None)
    retrieval = RetrievalConfig() if candidates is None else RetrievalConfig(candidates=candidates)
    calibration = spec.calibration
    # recording for calibrate, the retrieval calibration's own check decides (an answer
    # confidence given is the model a refit is compared with); else a calibration and an
    # answer confidence both given is refused by the Pipeline, not one silently dropped
    if spec.record_all_confidences:
        from abstain.confidence import default_calibration

        calibration = replace(calibration or default_calibration(), gate_threshold=None)
    chunking = WHOLE_DOCUMENT if spec.dataset == "scifact" else None
    reading = ReadingOptions() if spec.reader is None else ReadingOptions(reader=spec.reader)
    with Pipeline.from_settings(spec.settings, retrieval=retrieval, chunking=chunking,
                                gate=GateOptions(thresholds, calibration=calibration,
                                                 answer_confidence=None
                                                 if spec.record_all_confidences
                                                 else spec.answer_confidence),
                                reading=reading,
                                observation=ObservationOptions(log_queries=False)) as pipe:
        if spec.answer_all:
            from abstain.evaluate.answer_all import observing
            from abstain.generate.extractive import ExtractiveGenerator

            pipe.gate = observing(pipe.gate)
            if isinstance(pipe.generator, ExtractiveGenerator):
                pipe.generator.observing = True  # its quote_reading check refuses nothing
        if collection:
            with _bar(len(collection), "ingest", progress) as bar:
                ingest_collection(pipe, collection, bar.update)
        with _bar(len(chosen), "questions", progress) as bar:
            records = run_questions(pipe, chosen, progress=bar.update)
        stored = [d.source for d in pipe.store.list_documents(pipe.workspace)]
        meta = {"unknown_gold_sources": unknown_gold_sources(chosen, stored),
                "repeated_questions": repeated(chosen) if spec.data is not None else [],
                "name": name, "protocol": protocol, "preset": spec.preset,
                "embedder": pipe.embedder.name, "workspace": pipe.workspace,
                "calibration": pipe.confidence_name, "candidates": pipe.retrieval.candidates,
                "top_k": pipe.retrieval.top_k, "questions": len(chosen),
                "of": len(questions), "sampled": spec.sample,
                "answer_all": spec.answer_all}
    return Run(name, records, problems, meta)


def _bar(total: int, desc: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="q" if desc == "questions" else "doc",
                leave=False, disable=None if enabled else True, mininterval=0.5)

"""The whole pipeline in one place: ingest, search, ask.

A question's path is :meth:`Pipeline.ask`; each stage is a function of its own module,
called with what it needs::

    validate -> retrieve -> score -> gate -> generate -> verify -> answer
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from abstain.answer import Answer, answer_of
from abstain.confidence import Calibration, default_calibration
from abstain.config import RetrievalConfig, Settings
from abstain.embed import Embedder, load_embedder
from abstain.errors import ConfigError
from abstain.gate import Gate, GateThresholds, Rule, gate
from abstain.generate import Generator
from abstain.generate.clarify import ask_to_clarify
from abstain.generate.extractive import ExtractiveGenerator
from abstain.generate.rewrite import rewrite
from abstain.generate.stage import generate
from abstain.ingest import Ingester, IngestReport, Paraphraser
from abstain.ingest.chunk import ChunkingConfig
from abstain.rerank import DEFAULT_RERANK_DEPTH, Reranker
from abstain.rerank.llm import rerank_gate
from abstain.rerank.reading import PairLogits
from abstain.retrieve import Retrieval, Retriever, retrieve
from abstain.score import score
from abstain.stores import Store, open_store
from abstain.stores.base import check_workspace
from abstain.trace import Trace
from abstain.validate import MAX_QUESTION_CHARS, validate
from abstain.verify import LexicalVerifier, Strictness, Verifier
from abstain.verify.outcome import verify

if TYPE_CHECKING:
    from abstain.generate import ChatModel
    from abstain.rerank.llm import RerankConfig

PRESETS: dict[str, GateThresholds] = {
    "lenient": GateThresholds(answer_gate=30.0, max_best_distance=0.65, min_term_coverage=0.1,
                              min_confidence=0.3, min_answerability=0.05,
                              min_reading_confidence=0.3, waive_lexical_at=0.2),
    "balanced": GateThresholds(),
    "strict": GateThresholds(answer_gate=50.0, max_best_distance=0.5, min_term_coverage=0.4,
                             min_confidence=0.75, min_answerability=0.3,
                             min_reading_confidence=0.75, waive_lexical_at=None),
}


class Pipeline:
    """A persistent store plus the stages that answer from it."""

    def __init__(self, store: Store, embedder: Embedder, *, workspace: str = "default",
                 retrieval: RetrievalConfig | None = None,
                 chunking: ChunkingConfig | None = None,
                 paraphraser: Paraphraser | None = None,
                 thresholds: GateThresholds | None = None,
                 rules: Sequence[tuple[str, Rule]] = (),
                 generator: Generator | None = None,
                 calibration: Calibration | None = None,
                 reading_calibration: Calibration | None = None,
                 max_question_chars: int = MAX_QUESTION_CHARS,
                 verifier: Verifier | Literal["auto"] | None = "auto",
                 strictness: Strictness | str = Strictness.BALANCED,
                 rewrite_query: bool = False,
                 clarify_on_empty: bool = False,
                 llm_rerank: bool | RerankConfig = False,
                 reader: bool | PairLogits = False,
                 reranker: Reranker | None = None,
                 answerability_threshold: float | None = None,
                 rerank_depth: int = DEFAULT_RERANK_DEPTH,
                 log_queries: bool = True,
                 observers: Sequence[Callable[[Answer], None]] = ()) -> None:
        """LLM options (docs/GENERATION.md): ``generator`` an LLM generator;
        ``verifier`` "auto" = the lexical verifier for LLM generators (and for any
        generator at strict/paranoid), None = no verification; ``strictness`` loose /
        balanced / strict / paranoid; ``rewrite_query`` and ``llm_rerank`` need a
        generator with ``chat`` (an OpenAI-compatible or local one).
        ``clarify_on_empty``: when retrieval finds nothing at all, let the LLM append
        one clarifying question to the refusal (clarify-only prompt, no documents).
        Off by default, so that no refusal ever calls an LLM unless asked to.

        Reading-level model (docs/MODEL_CARD.md): ``reader=True`` loads abstain's own
        model (or pass any object with ``name`` and ``logits(a, b)``); it reads the kept
        evidence of a question the gate has not already refused
        (:mod:`abstain.rerank.reading`): gate check ``answerability`` (refuse
        ``unanswerable`` below ``answerability_threshold``, default the thresholds'
        ``min_answerability``), and the calibrated confidence then comes from
        ``reading_calibration`` (fitted with that feature). ``reranker`` reorders the top
        ``rerank_depth`` fused hits before the gate.

        Observation (docs/TUNING.md): every answer goes to the store's query log when
        ``abstain log on`` enabled it there (``log_queries=False`` never records, as
        ``abstain eval`` does), then to each of ``observers`` (e.g. server metrics)."""
        self.generator: Generator = generator or ExtractiveGenerator()
        self.strictness = Strictness.parse(strictness)
        self.verifier = _resolve_verifier(verifier, self.generator, self.strictness)
        self.rewrite_query = rewrite_query
        self.clarify_on_empty = clarify_on_empty
        self.llm_rerank = _resolve_rerank(llm_rerank)
        if (rewrite_query or self.llm_rerank) and not hasattr(self.generator, "chat"):
            raise ConfigError("rewrite_query and llm_rerank need an LLM generator "
                              "(an OpenAI-compatible URL or the local model)")
        self.store = store
        self.embedder = embedder
        self.workspace = check_workspace(workspace)
        self.retrieval = retrieval or RetrievalConfig()
        self.chunking = chunking or ChunkingConfig()
        self.paraphraser = paraphraser
        self.retriever = Retriever(store, embedder, self.retrieval)
        # -- reading-level model: reads the kept evidence; an optional reranker --
        self.reader = _resolve_reader(reader)
        self.reranker = reranker
        self.rerank_depth = rerank_depth
        thresholds = thresholds or GateThresholds()
        if answerability_threshold is not None:
            thresholds = replace(thresholds, min_answerability=answerability_threshold)
        self.gate = Gate(thresholds, rules)
        self.calibration = calibration or default_calibration()
        self.reading_calibration = (reading_calibration or calibration
                                    or default_calibration(reading=True))
        self.max_question_chars = max_question_chars
        self.log_queries = log_queries
        self.observers: list[Callable[[Answer], None]] = list(observers)

    @classmethod
    def preset(cls, name: str, *, store: str | None = None, **kwargs: Any) -> Pipeline:
        """A pipeline with named gate thresholds: ``lenient``, ``balanced`` or ``strict``;
        a ``+reader`` suffix (``balanced+reader``) also enables the reading-level model."""
        name, plus, extra = name.partition("+")
        if plus and extra == "reader":
            kwargs.setdefault("reader", True)
        elif plus:
            raise ConfigError(f"unknown preset suffix {extra!r}; the only one is '+reader'")
        if name not in PRESETS:
            raise ConfigError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
        return cls.from_settings(Settings(store=store), thresholds=PRESETS[name], **kwargs)

    @property
    def chat_model(self) -> ChatModel:
        """The generator's chat interface (for query rewrite and LLM rerank)."""
        return self.generator  # type: ignore[return-value]

    @classmethod
    def from_settings(cls, settings: Settings, *, create_store: bool = True,
                      **kwargs: Any) -> Pipeline:
        """Open the settings' store; ``settings.llm_url`` (URL or ``local``) sets the generator
        unless one is passed. ``create_store=False``: a missing SQLite file is an error."""
        store = open_store(settings.store, create=create_store)
        if settings.llm_url and kwargs.get("generator") is None:
            from abstain.generate import load_generator

            try:
                kwargs["generator"] = load_generator(settings)
            except BaseException:
                store.close()
                raise
        try:
            embedder = load_embedder(settings.embedder or _stored_embedder(store))
            return cls(store, embedder, workspace=settings.workspace, **kwargs)
        except BaseException:
            store.close()
            raise

    # -- documents ---------------------------------------------------------
    def ingest(self, paths: Sequence[str | Path], *, workspace: str | None = None,
               prune: bool = False, follow_symlinks: bool = False,
               on_progress: Callable[[str, int], None] | None = None) -> IngestReport:
        """Ingest files and folders (docs/INGEST.md). ``prune``: also remove the documents
        under each folder whose file is gone. ``follow_symlinks``: ingest symlinks that
        lead out of the folder. A path that does not exist raises InputError."""
        return self._ingester(workspace, on_progress, follow_symlinks).ingest_paths(
            paths, prune=prune)

    def ingest_text(self, text: str, *, source: str, fmt: str = "md", title: str | None = None,
                    workspace: str | None = None) -> IngestReport:
        return self._ingester(workspace, None).ingest_text(text, source=source, fmt=fmt,
                                                           title=title)

    def _ingester(self, workspace: str | None, on_progress: Callable[[str, int], None] | None,
                  follow_symlinks: bool = False) -> Ingester:
        return Ingester(self.store, self.embedder,
                        self.workspace if workspace is None else workspace, self.chunking,
                        self.paraphraser, on_progress, follow_symlinks)

    # -- questions ---------------------------------------------------------
    def search(self, question: str, *, workspace: str | None = None,
               top_k: int | None = None) -> Retrieval:
        from abstain.errors import InputError

        text = question.strip()
        if not text:
            raise InputError("the question is empty")
        return self.retriever.retrieve(text, workspace=workspace or self.workspace, top_k=top_k)

    def ask(self, question: str, *, workspace: str | None = None) -> Answer:
        """Answer from the workspace's documents, or refuse with the reason.

        The question's whole path: :meth:`gate_question` (validate -> retrieve -> score
        -> gate), then generate -> verify -> answer. Each stage is a function of its module
        that returns the frozen :class:`~abstain.trace.Trace` with its record added; the
        first one that refuses ends the trace, and the stages after pass it through. The
        Answer is built from the finished trace (:func:`abstain.answer.answer_of`)."""
        trace = self.gate_question(question, workspace or self.workspace)
        trace = generate(trace, self.generator)
        trace = verify(trace, self.verifier, self.strictness)
        return self.observe(answer_of(trace))

    def gate_question(self, question: str, workspace: str) -> Trace:
        """The path up to the gate: validate -> [LLM query rewrite] -> retrieve [-> rerank]
        -> score -> gate [+ the reader's reading] [-> clarify-only prompt on zero hits | -> LLM
        rerank]. Nothing is
        generated yet; the stream and the server call this, then generate their own way."""
        trace = validate(question, workspace, generator=self.generator.name,
                         max_chars=self.max_question_chars)
        if self.rewrite_query:
            trace = rewrite(trace, self.chat_model)
        trace = retrieve(trace, self.retriever, top_k=self.retrieval.top_k,
                         reranker=self.reranker, rerank_depth=self.rerank_depth)
        trace = score(trace, self.store, self.gate.thresholds, self.calibration,
                      top_k=self.retrieval.top_k, rrf_k=self.retrieval.rrf_k,
                      published_only=self.retrieval.published_only)
        trace = gate(trace, self.gate, min_confidence=self.calibration.gate_threshold,
                     known_identifiers=lambda: self.store.identifiers(workspace),
                     reader=self.reader, reading_calibration=self.reading_calibration)
        if self.clarify_on_empty and self.generator.uses_llm:
            trace = ask_to_clarify(trace, self.generator)
        if self.llm_rerank is not None:
            trace = rerank_gate(trace, self.chat_model, self.llm_rerank)
        return trace

    def observe(self, answer: Answer) -> Answer:
        """Log, record (query log) and report a finished answer; see :mod:`abstain.observe`."""
        from abstain.observe import observe

        return observe(self, answer)

    # -- lifecycle ---------------------------------------------------------
    def close(self) -> None:
        self.retriever.close()
        self.store.close()
        close_generator = getattr(self.generator, "close", None)
        if close_generator is not None:
            close_generator()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _resolve_reader(reader: bool | PairLogits) -> PairLogits | None:
    if reader is False or reader is None:
        return None
    if reader is True:
        from abstain.rerank.reader import shared_reader

        return shared_reader()
    return reader


def _resolve_verifier(verifier: Verifier | Literal["auto"] | None, generator: Generator,
                      strictness: Strictness) -> Verifier | None:
    if isinstance(verifier, str):
        return LexicalVerifier() if generator.uses_llm or strictness.needs_verifier else None
    if verifier is None and strictness.needs_verifier:
        raise ConfigError(f"strictness {strictness.value!r} needs a verifier: pass "
                          "verifier=LexicalVerifier() (or a trained scorer), or use "
                          "strictness 'balanced'")
    return verifier


def _resolve_rerank(option: bool | RerankConfig) -> RerankConfig | None:
    if option is False:
        return None
    from abstain.rerank.llm import RerankConfig

    return RerankConfig() if option is True else option


def _stored_embedder(store: Store) -> str | None:
    """Reopen a store with the embedder it was built with, when abstain knows it."""
    info = store.embedder()
    if info is None:
        return None
    if info.name.startswith("hashing-"):
        return "hashing"
    from abstain.embed.e5 import MODEL_NAME, SPEC

    return SPEC if info.name == MODEL_NAME else None


def ask(question: str, docs: Sequence[str | Path], *, preset: str = "balanced",
        embedder: Embedder | None = None, **kwargs: Any) -> Answer:
    """One-shot: answer from ``docs`` (paths, or Markdown text with a line break in it).

    A path that does not exist raises InputError. The documents are ingested once
    into a store in the user cache directory named by their content hashes (and the
    embedder), so asking again about the same documents reuses it.
    """
    from abstain.oneshot import oneshot_store

    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; choose from {', '.join(PRESETS)}")
    model = embedder or _default_embedder()
    with oneshot_store(docs, model, chunking=kwargs.get("chunking"),
                       paraphraser=kwargs.get("paraphraser")) as store, Pipeline(
            store, model, thresholds=PRESETS[preset], **kwargs) as pipe:
        return pipe.ask(question)


_EMBEDDERS: dict[str, Embedder] = {}


def _default_embedder() -> Embedder:
    """The default embedder, loaded once per process for one-shot questions."""
    if "default" not in _EMBEDDERS:
        _EMBEDDERS["default"] = load_embedder()
    return _EMBEDDERS["default"]

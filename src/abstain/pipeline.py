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

from abstain.answer import Answer
from abstain.answer_confidence import shipped_answer_confidence
from abstain.confidence import default_calibration
from abstain.config import RetrievalConfig, Settings
from abstain.embed import Embedder, load_embedder
from abstain.errors import ConfigError
from abstain.evidence import Evidence
from abstain.gate import Gate, GateThresholds, gate
from abstain.generate import Generator, chats
from abstain.generate.clarify import ask_to_clarify
from abstain.generate.extractive import ExtractiveGenerator
from abstain.generate.rewrite import rewrite
from abstain.generate.stage import generate
from abstain.ingest import Ingester, IngestReport, Paraphraser
from abstain.ingest.chunk import ChunkingConfig
from abstain.ingest.sources import named
from abstain.pipeline_options import (
    GateOptions,
    LLMOptions,
    ObservationOptions,
    Options,
    ReadingOptions,
    grouped,
)
from abstain.presets import Preset, Recipe
from abstain.rerank.llm import rerank_gate
from abstain.rerank.reading import PairLogits
from abstain.retrieve import Retrieval, Retriever, retrieve
from abstain.score import score
from abstain.stores import Store, open_store
from abstain.stores.base import DocumentInfo, check_workspace
from abstain.terminology import Terminology, clarify, consult
from abstain.trace import Trace, answer_of
from abstain.validate import must_be_text, question_text, validate
from abstain.verify import LexicalVerifier, Strictness, Verifier
from abstain.verify.outcome import verify

if TYPE_CHECKING:
    from abstain.generate import ChatModel
    from abstain.rerank.llm import RerankConfig

PRESETS: dict[str, GateThresholds] = {preset: preset.thresholds() for preset in Preset}
"""Each :class:`~abstain.presets.Preset`'s thresholds, by name (kept for old callers)."""


class Pipeline:
    """A persistent store plus the stages that answer from it."""

    def __init__(self, store: Store, embedder: Embedder, *, workspace: str = "default",
                 retrieval: RetrievalConfig | None = None,
                 chunking: ChunkingConfig | None = None,
                 paraphraser: Paraphraser | None = None,
                 generator: Generator | None = None,
                 gate: GateOptions | None = None,
                 reading: ReadingOptions | None = None,
                 llm: LLMOptions | None = None,
                 observation: ObservationOptions | None = None,
                 vocabulary: bool = True,
                 **shorthands: Any) -> None:
        """``generator``: the extractive answerer (default) or an LLM generator. The rest
        comes in four typed groups (:mod:`abstain.pipeline_options`): ``gate``
        (thresholds, rules, calibration, longest question), ``reading`` (abstain's
        reading-level model, a reranker), ``llm`` (verifier, strictness, query rewrite, LLM
        rerank, clarify-only prompt) and ``observation`` (query log, observers). Each of
        their fields is also a keyword of its own: ``Pipeline(store, embedder,
        strictness="strict", reader=False)``. The reader reads and vetoes by default
        (``reader=True``); thresholds whose reading decides
        (``Preset.BALANCED.thresholds(reading_decides=True)``, as ``--reader`` and the
        ``+reader`` presets give) let it decide instead.

        Vocabulary (docs/VOCABULARY.md): with ``vocabulary=True`` the workspace's SKOS
        vocabulary (``abstain vocab add``) is read before retrieval and after a gate
        refusal (:mod:`abstain.terminology`)."""
        _check_parts(store, embedder)
        options = grouped(Options(gate or GateOptions(), reading or ReadingOptions(),
                              llm or LLMOptions(), observation or ObservationOptions()),
                          shorthands)
        g, r, o = options.gate, options.reading, options.observation
        self.reader = _resolve_reader(r.reader)  # the reading-level model, when on
        self.generator: Generator = generator or ExtractiveGenerator(
            judge=self.reader, same_pages=not g.thresholds.reading_decides,
            min_quote_reading=g.thresholds.min_quote_reading)
        self.options = options
        self.strictness = Strictness.parse(options.llm.strictness)
        self.verifier = _resolve_verifier(options.llm.verifier, self.generator,
                                          self.strictness)
        self.rewrite_query = options.llm.rewrite_query
        self.clarify_on_empty = options.llm.clarify_on_empty
        self.llm_rerank = _resolve_rerank(options.llm.llm_rerank)
        if (self.rewrite_query or self.llm_rerank) and not self.generator.can_chat:
            raise ConfigError("rewrite_query and llm_rerank need an LLM generator "
                              "(an OpenAI-compatible URL or the local model)")
        self.store = store
        self.embedder = embedder
        self.workspace = check_workspace(workspace)
        self.retrieval = retrieval or RetrievalConfig()
        self.chunking = chunking or ChunkingConfig()
        self.paraphraser = paraphraser
        self.retriever = Retriever(store, embedder, self.retrieval)
        self.terminology = _resolve_terminology(store, self._naming) if vocabulary else None
        # -- an optional reranker --
        self.reranker = r.reranker
        self.rerank_depth = r.rerank_depth
        thresholds = g.thresholds
        if r.answerability_threshold is not None:
            thresholds = replace(thresholds, min_answerability=r.answerability_threshold)
        if g.calibration is not None and g.answer_confidence is not None:
            raise ConfigError("give a calibration or an answer confidence, not both: the "
                              "gate's confidence check decides on one of them")
        if g.answer_confidence is not None:  # its own threshold, not the shipped model's
            thresholds = replace(thresholds, min_answer_confidence=None)
        self.gate = Gate(thresholds, g.rules, None if g.calibration is not None
                         else g.answer_confidence or shipped_answer_confidence())
        self.calibration = g.calibration or default_calibration()
        self.reading_calibration = (r.calibration or g.calibration
                                    or default_calibration(reading=True))
        self.max_question_chars = g.max_question_chars
        self.log_queries = o.log_queries
        self.observers: list[Callable[[Answer], None]] = list(o.observers)
        self.recipe: Recipe | None = None
        """How to open this pipeline again: set by :meth:`preset` when it was given only
        names and plain values; None for a pipeline built from objects."""

    @classmethod
    def preset(cls, name: str | Preset, *, store: str | None = None,
               create_store: bool = True, **kwargs: Any) -> Pipeline:
        """A pipeline with named gate thresholds (:class:`~abstain.presets.Preset`:
        ``lenient``, ``balanced`` or ``strict``); a ``+reader`` suffix (``balanced+reader``)
        lets the reading-level model's reading decide. A pipeline given only names and plain
        values keeps them as its :attr:`recipe`. ``create_store=False``: a missing SQLite
        file is an error (:meth:`from_settings`)."""
        preset, decides = Preset.parse(name)
        recipe = Recipe.of(preset.named(reading_decides=decides), store, kwargs)
        if decides:
            kwargs.setdefault("reader", True)
        pipe = cls.from_settings(Settings(store=store), create_store=create_store,
                                 thresholds=preset.thresholds(reading_decides=decides),
                                 **kwargs)
        pipe.recipe = recipe
        return pipe

    @property
    def chat_model(self) -> ChatModel:
        """The generator's chat interface (for query rewrite and LLM rerank)."""
        if not chats(self.generator):
            raise ConfigError(f"{self.generator.name} cannot chat (can_chat is False)")
        return self.generator

    @classmethod
    def from_settings(cls, settings: Settings, *, create_store: bool = True,
                      **kwargs: Any) -> Pipeline:
        """Open the settings' store; ``settings.llm_url`` (URL or ``local``) sets the generator
        unless one is passed. ``create_store=False``: a missing SQLite file is an error."""
        store = open_store(settings.store, create=create_store, replicas=settings.replicas)
        if settings.llm_url and kwargs.get("generator") is None:
            from abstain.generate import load_generator

            try:
                kwargs["generator"] = load_generator(settings)
            except BaseException:
                store.close()
                raise
        kwargs.setdefault("workspace", settings.workspace)  # a keyword names it too
        try:
            embedder = load_embedder(settings.embedder or _stored_embedder(store))
            return cls(store, embedder, **kwargs)
        except BaseException:
            store.close()
            raise

    # -- documents ---------------------------------------------------------
    def ingest(self, paths: str | Path | Sequence[str | Path], *, workspace: str | None = None,
               prune: bool = False, follow_symlinks: bool = False,
               on_progress: Callable[[str, int], None] | None = None) -> IngestReport:
        """Ingest files and folders (docs/INGEST.md): one path or several. ``prune``: also
        remove the documents under each folder whose file is gone. ``follow_symlinks``:
        ingest symlinks that lead out of the folder. A path that does not exist raises
        InputError."""
        if isinstance(paths, str | Path):  # one path, not the characters of its name
            paths = [paths]
        return self._ingester(workspace, on_progress, follow_symlinks).ingest_paths(
            paths, prune=prune)

    def ingest_text(self, text: str, *, source: str, fmt: str = "md", title: str | None = None,
                    workspace: str | None = None) -> IngestReport:
        """Ingest ``text`` as the document ``source`` (its name and identity: the same source
        again replaces it); ``fmt``: md, rst, html or txt."""
        must_be_text(text, "the document text")
        _must_be_named(source, "faq.md")
        return self._ingester(workspace, None).ingest_text(text, source=source, fmt=fmt,
                                                           title=title)

    def ingest_bytes(self, data: bytes, *, source: str,
                     workspace: str | None = None) -> IngestReport:
        """Ingest a file's bytes (an upload, an object from a bucket) as the document
        ``source``, parsed by its suffix as :meth:`ingest` parses a file of that name
        (``"prices.xlsx"``: its sheets' rows). An unreadable file is an IngestError."""
        from abstain.errors import InputError

        if not isinstance(data, bytes | bytearray):
            raise InputError(f"the document's bytes must be bytes, not {type(data).__name__}")
        _must_be_named(source, "prices.xlsx")
        return self._ingester(workspace, None).ingest_bytes(bytes(data), source=source)

    def documents(self, *, workspace: str | None = None) -> list[DocumentInfo]:
        """The workspace's documents: id, source, title, chunk count, flags, update time."""
        return self.store.list_documents(self._workspace(workspace))

    def delete(self, document: str, *, workspace: str | None = None) -> bool:
        """Remove a document — by its id or its source (a file's resolved path, as
        :meth:`documents` lists it) — with its chunks; False when the workspace holds none
        such. As ``abstain docs rm``."""
        must_be_text(document, "the document to delete (its id or source)")
        ws = self._workspace(workspace)
        matches = named(self.store.list_documents(ws), document)
        return any([self.store.delete_document(ws, d.id) for d in matches])

    def _workspace(self, workspace: str | None) -> str:
        return self.workspace if workspace is None else check_workspace(workspace)

    def _ingester(self, workspace: str | None, on_progress: Callable[[str, int], None] | None,
                  follow_symlinks: bool = False) -> Ingester:
        return Ingester(self.store, self.embedder,
                        self.workspace if workspace is None else workspace, self.chunking,
                        self.paraphraser, on_progress, follow_symlinks)

    # -- questions ---------------------------------------------------------
    def search(self, question: str, *, workspace: str | None = None,
               top_k: int | None = None) -> Retrieval:
        """The fused evidence for ``question`` (both arms, RRF), best first: no gate, no
        answer. An empty question or a ``top_k`` under 1 raises InputError."""
        from abstain.errors import InputError

        must_be_text(question, "the question")
        if top_k is not None and top_k < 1:
            raise InputError(f"top_k must be at least 1, not {top_k}")
        text = question.strip()
        if not text:
            raise InputError("the question is empty")
        return self.retriever.retrieve(text, workspace=self._workspace(workspace), top_k=top_k)

    def ask(self, question: str, *, workspace: str | None = None) -> Answer:
        """Answer from the workspace's documents, or refuse with the reason.

        The question's whole path: :meth:`gate_question` (validate -> retrieve -> score
        -> gate), then generate -> verify -> answer. Each stage is a function of its module
        that returns the frozen :class:`~abstain.trace.Trace` with its record added; the
        first one that refuses ends the trace, and the stages after pass it through. The
        Answer is built from the finished trace (:func:`abstain.trace.answer_of`)."""
        trace = self.gate_question(question, workspace)
        trace = generate(trace, self.generator)
        trace = verify(trace, self.verifier, self.strictness)
        return self.observe(answer_of(trace))

    def gate_question(self, question: str, workspace: str | None = None) -> Trace:
        """The path up to the gate, for a question and a workspace taken as :meth:`ask` takes
        them (:func:`~abstain.validate.question_text`: None is refused as an empty question,
        a non-string is an InputError; an invalid workspace name is an InputError, None is the
        pipeline's own): validate -> vocabulary -> [LLM query rewrite] -> retrieve
        [-> rerank] -> score -> gate [+ the reader's reading] [-> unknown term] [-> clarify-only
        prompt on zero hits | -> LLM rerank]. Nothing is
        generated yet; the stream and the server call this, then generate their own way."""
        text = question_text(question)
        ws = self._workspace(workspace)
        trace = validate(text, ws, generator=self.generator.name,
                         max_chars=self.max_question_chars)
        trace = consult(trace, self.terminology)  # terms first (abstain.terminology)
        if self.rewrite_query:
            trace = rewrite(trace, self.chat_model)
        trace = retrieve(trace, self.retriever, top_k=self.retrieval.top_k,
                         reranker=self.reranker, rerank_depth=self.rerank_depth)
        trace = score(trace, self.store, self.gate.thresholds, self.calibration,
                      top_k=self.retrieval.top_k, rrf_k=self.retrieval.rrf_k,
                      published_only=self.retrieval.published_only)
        trace = gate(trace, self.gate, min_confidence=self.calibration.gate_threshold,
                     known_identifiers=lambda: self.store.identifiers(ws),
                     reader=self.reader, reading_calibration=self.reading_calibration,
                     answering_first=(self.gate.thresholds.reading_decides
                                      or self.generator.uses_llm),
                     embedder=self.embedder)
        trace = clarify(trace, self.terminology)  # an unknown term: ask, don't guess
        if self.clarify_on_empty and self.generator.uses_llm:
            trace = ask_to_clarify(trace, self.generator)
        if self.llm_rerank is not None:
            trace = rerank_gate(trace, self.chat_model, self.llm_rerank)
        return trace

    def _naming(self, query: str, workspace: str) -> tuple[Evidence, ...]:
        """The documents' best passages for a concept's labels (after its definition)."""
        return self.retriever.retrieve(query, workspace=workspace, top_k=self.retrieval.top_k,
                                       check_workspace=False).evidence

    def observe(self, answer: Answer) -> Answer:
        """Log, record (query log) and report a finished answer; see :mod:`abstain.observe`."""
        from abstain.observe import observe

        return observe(answer, log_to=self.store if self.log_queries else None,
                       calibration=self.confidence_name, observers=self.observers)

    @property
    def confidence_name(self) -> str:
        """The name of the confidence the answers state: the reading calibration's where the
        reading decides, else the answer confidence's, else the calibration file's (the query
        log and ``abstain eval`` record it)."""
        if self.reader is not None and self.gate.thresholds.reading_decides:
            return self.reading_calibration.name
        model = self.gate.answer_confidence
        return self.calibration.name if model is None else model.name

    # -- lifecycle ---------------------------------------------------------
    def close(self) -> None:
        """Close the store, the retriever's threads and the generator (an LLM's client)."""
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


def _check_parts(store: object, embedder: object) -> None:
    """A clear error for a path or a name where the store or the embedder goes."""
    if not callable(getattr(store, "search_vector", None)):
        raise ConfigError(f"store must be a store (abstain.open_store(path or URL)), not "
                          f"{store!r}; or use Pipeline.from_settings / Pipeline.preset")
    if not callable(getattr(embedder, "embed_batch", None)):
        raise ConfigError(f"embedder must be an embedder (abstain.embed.load_embedder()), not "
                          f"{embedder!r}")


def _resolve_terminology(store: Store, documents: Callable[[str, str], Sequence[Evidence]]
                         ) -> Terminology | None:
    from abstain.vocabulary import find_vocabulary

    vocabulary = find_vocabulary(store)
    return None if vocabulary is None else Terminology(vocabulary, store, documents)


def _resolve_reader(reader: bool | PairLogits) -> PairLogits | None:
    if reader is False or reader is None:
        return None
    if reader is True:
        from abstain.rerank.reader import LazyReader

        return LazyReader()
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


def _must_be_named(source: object, example: str) -> None:
    """InputError unless a document sent to be ingested has a source: a non-empty name."""
    from abstain.errors import InputError

    if not isinstance(source, str) or not source.strip():
        raise InputError(f"a document needs a source: a non-empty name (source=\"{example}\")")


def ask(question: str, docs: str | Path | Sequence[str | Path], *,
        preset: str | Preset = Preset.BALANCED, embedder: Embedder | str | None = None,
        **kwargs: Any) -> Answer:
    """One-shot: answer from ``docs`` — files, folders, or Markdown text (a line break or a
    space in it; a single word is read as a path); one of them, or a list. ``preset``:
    ``lenient``, ``balanced`` (default), ``strict``, each with ``+reader`` too;
    ``embedder``: an embedder or its name as the CLI's ``--embedder`` takes it (``"e5"``,
    :func:`abstain.embed.load_embedder`); other keywords are :class:`Pipeline`'s
    (``reader=False``, ``strictness=…``).

    No document, a path that does not exist, or documents none of which can be read raise
    InputError. The documents are ingested once into a store in the user cache directory
    named by their content hashes (and the embedder), so asking again about the same
    documents reuses it.
    """
    from abstain.errors import InputError
    from abstain.oneshot import oneshot_store

    if isinstance(docs, str | Path):
        docs = [docs]  # one path or text, not the characters of one
    if not docs:
        raise InputError("no documents to answer from: give docs=[path or text, …]")
    if "workspace" in kwargs:
        raise InputError("a one-shot question has one workspace of its own: ingest into a "
                         "Pipeline to use workspaces")
    chosen, decides = Preset.parse(preset)
    if decides:
        kwargs.setdefault("reader", True)
    model = _oneshot_embedder(embedder) if embedder is None or isinstance(embedder, str) \
        else embedder
    with oneshot_store(docs, model, chunking=kwargs.get("chunking"),
                       paraphraser=kwargs.get("paraphraser")) as store, Pipeline(
            store, model, thresholds=chosen.thresholds(reading_decides=decides),
            **kwargs) as pipe:
        return pipe.ask(question)


_EMBEDDERS: dict[str, Embedder] = {}


def _oneshot_embedder(name: str | None = None) -> Embedder:
    """The embedder of that name (the default one: None), loaded once per process for
    one-shot questions."""
    key = name or "default"
    if key not in _EMBEDDERS:
        _EMBEDDERS[key] = load_embedder(name)
    return _EMBEDDERS[key]

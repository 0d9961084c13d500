"""Terms first: a workspace's vocabulary (SKOS) is read before its documents.

Two stages around retrieval, both recorded as the ``vocabulary`` stage of the trace:

* :func:`consult` (after validate, before retrieval). A question that asks what a term is
  ("What is a CMZ?", "Wat is een congestiebeheergebied?") and names a concept by any of its
  labels — preferred, alternative, hidden, a notation; in any language; folded, acronyms
  dotted or not — is answered with the concept's definition (in the question's language
  when the vocabulary has it), cited to the concept's URI: tier ``vocabulary``, confidence
  1, no LLM; the documents' passages that name the concept follow as uncited evidence.
  Otherwise each alternative or hidden label in the question is read as its
  preferred label (``CMZ`` -> ``congestion management zone``), so that retrieval and the
  gate find documents that only use the preferred one; the question as asked is kept.
* :func:`clarify` (after the gate refused). When the term the question hinges on — the
  term of a "what is" question, a name that exists nowhere, a word in no document — is in
  neither the vocabulary nor the documents, the refusal becomes ``unknown_term``: a
  clarifying question in the question's language and the nearest known concepts as
  suggestions (:mod:`abstain.vocabulary.near`). No LLM is called.

Both pass a question through unchanged in a workspace without a vocabulary.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from abstain.answer import AnswerSentence, Citation
from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
from abstain.mentions import Kind
from abstain.messages import refusal_message
from abstain.question import Question
from abstain.records import Check, CheckName, Refusal, RefusalReason
from abstain.stores.vocab_base import Concept, LabelKind, LabelMatch, LangText, pick
from abstain.text import find_identifiers, stems
from abstain.trace import Outcome, Stage, Trace, ms_since
from abstain.vocabulary.near import near_concepts
from abstain.vocabulary.questions import Span, asked_term, spans, term_keys

if TYPE_CHECKING:
    from abstain.stores.base import Store
    from abstain.stores.vocab_base import VocabularyStore

TIER = "vocabulary"
ORIGIN = "vocabulary"
"""``Document.origin`` of a concept shown as evidence."""
CLARIFIED_REASONS = ("unknown_entity", "low_coverage")
"""Gate refusals whose missing names or words may be unknown terms (any refusal of a
"what is" question may)."""


@dataclass(frozen=True, slots=True)
class Terminology:
    """A store's vocabularies and documents, as the two stages read them."""

    vocabulary: VocabularyStore
    store: Store
    documents: Callable[[str, str], Sequence[Evidence]] | None = None
    """``(query, workspace)`` -> the documents' best passages: those that name a concept
    answered from the vocabulary follow its definition as (uncited) evidence."""


def consult(trace: Trace, terms: Terminology | None) -> Trace:
    """The vocabulary before retrieval; see the module docstring."""
    if trace.ended or terms is None:
        return trace
    started = time.perf_counter()
    term = asked_term(trace.text)
    found = spans(trace.text)
    keys = [s.key for s in found] + (term_keys(term) if term else [])
    matches = terms.vocabulary.find_labels(trace.workspace, keys)
    if not matches:
        return trace
    by_key: dict[str, list[LabelMatch]] = {}
    for m in matches:
        by_key.setdefault(m.key, []).append(m)
    notes: list[str] = []
    if term is not None:
        hits = [m for k in term_keys(term) for m in by_key.get(k, ())
                if len(term) > 2 or _case_fits(m, term)]
        uris = list(dict.fromkeys(m.uri for m in hits))
        concepts = terms.vocabulary.concepts(trace.workspace, uris[:1])
        if len(uris) == 1 and uris[0] in concepts:
            concept = concepts[uris[0]]
            if concept.definitions:
                return _defined(trace, concept, hits[0], term, terms, started)
            notes.append(f"vocabulary: {term!r} is <{concept.uri}>, which has no definition; "
                         "the documents are read")
        elif len(uris) > 1:
            notes.append(f"vocabulary: {term!r} names {len(uris)} concepts "
                         f"({', '.join(uris[:3])}); the documents are read")
    return _normalised(trace, found, by_key, terms, notes, started)


def _case_fits(match: LabelMatch, written: str) -> bool:
    """A label in capitals (an acronym: ``IT``) matches only words in capitals."""
    return not Span(0, 0, match.label, match.key).acronym or Span(0, 0, written, "").acronym


def _defined(trace: Trace, concept: Concept, match: LabelMatch, term: str,
             terms: Terminology, started: float) -> Trace:
    definition = _in_language(concept.definitions, trace.language, match.lang)
    assert definition is not None
    pref = concept.pref_label(definition.lang or trace.language)
    named = pref if match.kind is LabelKind.PREF else f"{pref} ({term})"
    evidence = concept_evidence(concept, definition, trace.workspace, match.vocabulary)
    sentence = AnswerSentence(f"{named[:1].upper()}{named[1:]}: {definition.text}", (1,), (1,))
    citation = Citation(1, concept.uri, evidence.chunk_id, definition.text, pref, 1)
    naming = _naming(concept, trace.workspace, terms)
    follow = (f"; documents that name it follow: {', '.join(e.source for e in naming)}"
              if naming else "")
    check = Check(CheckName.VOCABULARY, True, term, "a concept of the vocabulary",
                  f"{term!r} is the {match.kind.value} label ({match.lang or 'no language'}) of "
                  f"<{concept.uri}> in vocabulary {match.vocabulary!r}; answered with its "
                  f"definition ({definition.lang or 'no language'}){follow}")
    stage = Stage("vocabulary", timings_ms=(("vocabulary_ms", ms_since(started)),),
                  checks=(check,))
    outcome = Outcome(sentences=(sentence,), citations=(citation,), triage="confident")
    shown = (evidence, *naming)
    return trace.end(outcome, stage, retrieved=shown, evidence=shown, confidence=1.0, tier=TIER)


MAX_NAMING = 3
"""Documents' passages shown after a definition, at most."""


def _naming(concept: Concept, workspace: str, terms: Terminology) -> tuple[Evidence, ...]:
    """The documents' passages that name the concept by one of its labels, best first."""
    if terms.documents is None:
        return ()
    labels = [t.text for kind, t in concept.labels() if kind is not LabelKind.NOTATION]
    wanted = [tuple(stems(label)) for label in labels]
    found: list[Evidence] = []
    for hit in terms.documents(" ".join(dict.fromkeys(labels)), workspace):
        text = tuple(stems(hit.labelled_text))
        if any(w and _holds(text, w) for w in wanted):
            found.append(hit)
    return tuple(found[:MAX_NAMING])


def _holds(text: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(text[i:i + n] == phrase for i in range(len(text) - n + 1))


def _in_language(texts: tuple[LangText, ...], *langs: str) -> LangText | None:
    for lang in langs:
        exact = [t for t in texts if t.lang.split("-")[0] == lang]
        if exact:
            return exact[0]
    return pick(texts, langs[0] if langs else "")


def concept_evidence(concept: Concept, definition: LangText, workspace: str,
                     vocabulary: str) -> Evidence:
    """A concept as a source of the answer: its URI is the source, its definition the text."""
    pref = concept.pref_label(definition.lang)
    document = Document(concept.uri, workspace, concept.uri, pref, "", curated=True,
                        metadata={"vocabulary": vocabulary}, origin=ORIGIN)
    chunk = Chunk(f"vocab:{concept.uri}", concept.uri, ChunkKind.CHILD, definition.text, 0,
                  heading_path=(pref,))
    return Evidence(FusedHit(chunk.id, 1.0), chunk, document, definition.text, confidence=100.0)


def _normalised(trace: Trace, found: list[Span], by_key: dict[str, list[LabelMatch]],
                terms: Terminology, notes: list[str], started: float) -> Trace:
    """Alternative and hidden labels of the question read as their preferred labels."""
    chosen: list[tuple[Span, LabelMatch]] = []
    for span in sorted(found, key=lambda s: (-(s.end - s.start), s.start)):
        fits = [m for m in by_key.get(span.key, ()) if _case_fits(m, span.text)]
        if not fits or any(s.start < span.end and span.start < s.end for s, _ in chosen):
            continue
        if len({m.uri for m in fits}) > 1:
            notes.append(f"vocabulary: {span.text!r} names several concepts; left as written")
            continue
        chosen.append((span, fits[0]))
    renamed = [(s, m) for s, m in chosen
               if not any(f.kind is LabelKind.PREF for f in by_key[s.key] if f.uri == m.uri)]
    concepts = terms.vocabulary.concepts(trace.workspace, [m.uri for _, m in renamed])
    text = trace.text
    shown: list[str] = []
    prefs = {s: c.pref_label(m.lang or trace.language) for s, m in renamed
             if (c := concepts.get(m.uri)) is not None}
    used = terms.store.term_counts(trace.workspace, [*prefs.values(), *(s.text for s in prefs)])
    for span, match in sorted(renamed, key=lambda sm: -sm[0].start):
        if span not in prefs:
            continue
        pref = prefs[span]
        if used.count(pref) == 0 and used.count(span.text) > 0:
            # the documents say it as the user did: reading the preferred label instead
            # would look for a word they never use (and refuse on it)
            notes.append(f"vocabulary: {span.text!r} kept as written: the documents use it, "
                         f"not its preferred label {pref!r}")
            continue
        text = text[:span.start] + pref + text[span.end:]
        shown.append(f"{span.text} -> {pref} <{match.uri}>")
    known = [f"{s.text} <{m.uri}>" for s, m in chosen if (s, m) not in renamed]
    detail = "; ".join([*(f"read {x}" for x in reversed(shown)),
                        *(f"known: {x}" for x in known)])
    check = Check(CheckName.VOCABULARY, True, len(chosen), None, detail)
    stage = Stage("vocabulary", timings_ms=(("vocabulary_ms", ms_since(started)),),
                  checks=(check,), notes=tuple(notes))
    if text == trace.text:
        return trace.then(stage)
    # The preferred labels make a new question text: read it as a new question.
    return trace.then(stage, text=text, query=text, parsed=Question.parse(text, trace.language))


def clarify(trace: Trace, terms: Terminology | None) -> Trace:
    """A gate refusal that hinges on an unknown term becomes ``unknown_term``."""
    outcome = trace.outcome
    if terms is None or outcome is None or outcome.refusal is None:
        return trace
    started = time.perf_counter()
    candidates = _hinges_on(trace, outcome.refusal)
    if not candidates or not terms.vocabulary.vocabularies(trace.workspace):
        return trace
    known = {m.key for m in terms.vocabulary.find_labels(
        trace.workspace, [k for c in candidates for k in term_keys(c)])}
    counts = terms.store.term_counts(trace.workspace, candidates)
    unknown = next((c for c in candidates if counts.count(c) == 0
                    and not any(k in known for k in term_keys(c))), None)
    if unknown is None:
        return trace
    near = near_concepts(terms.vocabulary, trace.workspace, unknown)
    labels = tuple(dict.fromkeys(n.concept.pref_label(trace.language) for n in near))
    message = refusal_message(RefusalReason.UNKNOWN_TERM, trace.language, term=unknown,
                              near=", ".join(labels))
    refusal = Refusal(RefusalReason.UNKNOWN_TERM, message, labels, (unknown,))
    detail = (f"{unknown!r} is in no vocabulary of the workspace and no document; nearest: "
              + (", ".join(f"{n.concept.pref_label(trace.language)} <{n.concept.uri}> "
                           f"({n.why} {n.score:.2f})" for n in near) or "none"))
    check = Check(CheckName.KNOWN_TERM, False, unknown, "in the vocabulary or the documents",
                  detail, RefusalReason.UNKNOWN_TERM)
    stage = Stage("vocabulary", timings_ms=(("vocabulary_ms", ms_since(started)),),
                  checks=(check,), notes=(f"the refusal {outcome.refusal.reason} became "
                                          "unknown_term: a clarifying question",))
    return trace.end(replace(outcome, refusal=refusal), stage)


def _hinges_on(trace: Trace, refusal: Refusal) -> list[str]:
    """The terms whose absence may have made the gate refuse, most decisive first."""
    out: list[str] = []
    term = asked_term(trace.text)
    if term is not None and not find_identifiers(term):
        out.append(term)
    if refusal.reason == "unknown_entity" and trace.parsed is not None:
        out += [m.text for m in trace.parsed.mentions
                if m.kind is Kind.NAME and m.why == "name" and m.text in refusal.missing]
    elif refusal.reason == "low_coverage":
        out += list(refusal.missing)
    return list(dict.fromkeys(out))


def reply_to_clarification(question: str, term: str, reply: str) -> str:
    """The question to ask once the user answered "what do you mean by TERM?" with ``reply``:
    a reply that is itself a question replaces the question; a short one (a term) takes the
    unclear term's place in it ("What is a CMQZ?" + "congestion management zone" -> "What
    is a congestion management zone?"); a longer one is added to it as what the term means."""
    text = " ".join(reply.split()).strip()
    if not text or text.endswith(("?", "？")):
        return text or question
    text = text.rstrip(".!。")
    if len(text.split()) <= MAX_REPLY_WORDS and term in question:
        return question.replace(term, text, 1)
    return f"{question} ({term}: {text})"


MAX_REPLY_WORDS = 8
"""A reply this short names the term meant; a longer one explains it."""

"""The known concepts nearest to an unknown term: by label similarity, then by structure.

The store proposes candidate labels (:meth:`VocabularyStore.similar_labels`: same initials,
same start, a shared word); each is scored by the better of its character similarity
(:class:`difflib.SequenceMatcher`) and its share of words in common, and a label whose
initials spell the term scores :data:`INITIALS_SCORE`. The best concepts come first; the
broader, narrower and related concepts of the best one fill the remaining places.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from abstain.stores.vocab_base import Concept, LabelMatch, VocabularyStore, initials, label_key

MIN_SCORE = 0.5
INITIALS_SCORE = 0.9
MAX_SUGGESTIONS = 5
MAX_BY_LABEL = 3


@dataclass(frozen=True, slots=True)
class NearConcept:
    concept: Concept
    score: float
    why: str
    """``label`` (similar label), ``initials``, ``broader``, ``narrower`` or ``related``
    (of the best match)."""


def similarity(key: str, match: LabelMatch, matcher: difflib.SequenceMatcher[str] | None = None
               ) -> tuple[float, str]:
    """How alike a term's key and a label are (0–1), and why; ``matcher`` has the key as its
    second sequence already (difflib caches what it learnt of it)."""
    if initials(match.key) == key.replace(" ", ""):
        return INITIALS_SCORE, "initials"
    if matcher is None:
        matcher = difflib.SequenceMatcher(None, "", key)
    matcher.set_seq1(match.key)
    a, b = set(key.split()), set(match.key.split())
    words = len(a & b) / len(a | b) if a | b else 0.0
    if words >= MIN_SCORE or matcher.quick_ratio() >= MIN_SCORE:
        return max(matcher.ratio(), words), "label"
    return words, "label"


def near_concepts(vocabulary: VocabularyStore, workspace: str, term: str, *,
                  limit: int = MAX_SUGGESTIONS) -> list[NearConcept]:
    key = label_key(term)
    best: dict[str, tuple[float, str]] = {}
    matcher = difflib.SequenceMatcher(None, "", key)
    for match in vocabulary.similar_labels(workspace, key):
        score, why = similarity(key, match, matcher)
        if score >= MIN_SCORE and score > best.get(match.uri, (0.0, ""))[0]:
            best[match.uri] = (score, why)
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:MAX_BY_LABEL]
    if not ranked:
        return []
    concepts = vocabulary.concepts(workspace, [uri for uri, _ in ranked])
    out = [NearConcept(concepts[uri], score, why) for uri, (score, why) in ranked
           if uri in concepts]
    if out:
        top = out[0].concept
        related = [(uri, rel) for rel, uris in (("broader", top.broader),
                                                ("narrower", top.narrower),
                                                ("related", top.related)) for uri in uris]
        out += _neighbours(vocabulary, workspace, related, {n.concept.uri for n in out},
                           out[0].score)
    return out[:limit]


def _neighbours(vocabulary: VocabularyStore, workspace: str,
                related: Sequence[tuple[str, str]], taken: set[str],
                score: float) -> list[NearConcept]:
    wanted = [(uri, rel) for uri, rel in related if uri not in taken]
    found = vocabulary.concepts(workspace, [uri for uri, _ in wanted])
    return [NearConcept(found[uri], round(score / 2, 3), rel) for uri, rel in wanted
            if uri in found]

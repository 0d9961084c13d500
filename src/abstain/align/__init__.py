"""Evidence alignment: the evidence an answer is built from must hold what was asked.

Retrieval finds text *about* the question's topic; these checks ask whether the
kept evidence — exactly what the generator receives — holds the specific things
the question asks about:

* **entities**: every identifier the question names (see :mod:`abstain.mentions`),
  and every name that is rare in the workspace, occurs whole in the evidence. One
  that exists elsewhere in the workspace refuses as ``entity_not_in_evidence``, one
  that exists nowhere as ``unknown_entity`` with "did you mean" suggestions; every
  name and flag must exist somewhere in the workspace.
* **informative coverage**: the question's content words, each weighted by how
  rare it is in the workspace (``1 - log(df + 1) / log(N + 1)``: a word in no chunk
  weighs 1, a word in every chunk about 0) and in general English (:func:`english_rarity`),
  and its identifiers must be present in the evidence (stem-equal): "thymol" counts,
  "involve" barely does. Words of context sentences weigh :data:`CONTEXT_WEIGHT`. An
  asked word that is rare in English and in no document refuses alone. The same share
  is asked of the best *passage* (two consecutive sentences with their headings), so
  the asked words must stand together, not scattered over the evidence.
* **answer type**: a *when / what year* question needs an evidence sentence with a
  date, time or version; *how many / how much / how long* one with a number; *who*
  one with a name — in a sentence that shares a word with the question.

The same module ranks evidence for identifier questions (chunks that hold the
identifiers first, those whose title or heading holds them before the rest) and
gives keyword evidence its own chunk confidence, so an exact identifier or
rare-term match is kept even when its cosine is weak.

The package is split by job: :mod:`~abstain.align.question` (the question read against the
workspace), :mod:`~abstain.align.types` (answer types) and :mod:`~abstain.align.checks`
(the evidence checks); every name is importable from ``abstain.align``.
"""

from __future__ import annotations

from abstain.align.checks import (
    EntityVerdict,
    answer_type_check,
    coverage_check,
    defines,
    definition_terms,
    entity_check,
    focus_evidence,
    generated_type_check,
    holds,
    informative_coverage,
    keyword_confidence,
    local_coverage,
    local_coverage_check,
    names_the_page,
    stating_headings,
    typed_sentence,
)
from abstain.align.question import Focus, phrases
from abstain.align.types import AskedType, carries
from abstain.asked import AnswerType
from abstain.text import english_rarity

__all__ = [
    "AnswerType",
    "AskedType",
    "EntityVerdict",
    "Focus",
    "answer_type_check",
    "carries",
    "coverage_check",
    "defines",
    "definition_terms",
    "english_rarity",
    "entity_check",
    "focus_evidence",
    "generated_type_check",
    "holds",
    "informative_coverage",
    "keyword_confidence",
    "local_coverage",
    "local_coverage_check",
    "names_the_page",
    "phrases",
    "stating_headings",
    "typed_sentence",
]

"""Verification after generation: citations, support, surgical correction, faithfulness.

    check_sentence (each sentence: its [n] point at retrieved evidence, its text is
                    found there, a support score from the Verifier)
      -> conclude  (drop unsupported sentences into ``unsupported_claims``, compute
                    faithfulness, apply the strictness threshold)

The seam is :meth:`Verifier.check` (one method). :class:`LexicalVerifier` is
the stand-in until a trained support scorer implements the same protocol.
"""

from __future__ import annotations

from abstain.verify.base import (
    DEFAULT_SUPPORT_THRESHOLD,
    Verifier,
    support_threshold,
    verifier_name,
)
from abstain.verify.correct import Verification, conclude, keeps
from abstain.verify.faithfulness import Strictness, faithfulness
from abstain.verify.lexical import LexicalVerifier
from abstain.verify.sentences import SentenceVerdict, check_sentence

__all__ = ["DEFAULT_SUPPORT_THRESHOLD", "LexicalVerifier", "SentenceVerdict", "Strictness",
           "Verification", "Verifier", "check_sentence", "conclude", "faithfulness", "keeps",
           "support_threshold", "verifier_name"]

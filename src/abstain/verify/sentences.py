"""Check one generated sentence: its citations, and its support.

For a sentence with ``[n]`` markers:

* every ``n`` must point at retrieved evidence (1 ≤ n ≤ number of sources);
  one that does not is an *outside* citation;
* the sentence is scored against the text of its cited sources together;
  with several sources each one is also scored alone, and one whose own score is
  below half the threshold is *not found* (the claim is not in that source);
* the quote shown for each citation is the source sentence that best matches.

A sentence without markers is scored against each source alone; when the best
one supports it, that source becomes its citation (``auto_cited``). An uncited
question is not a claim: it is neither kept nor reported as unsupported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from abstain.generate.cited import is_question
from abstain.records import Sentence
from abstain.verify.base import Verifier, support_threshold
from abstain.verify.lexical import best_sentence


@dataclass(frozen=True, slots=True)
class SentenceVerdict:
    sentence: Sentence
    """As the generator wrote it."""
    support: float
    supported: bool
    cites: tuple[int, ...]
    """The citations that hold (plus the one added for an uncited sentence)."""
    outside: tuple[int, ...] = ()
    """Citations that point at no retrieved evidence."""
    not_found: tuple[int, ...] = ()
    """Citations whose source does not contain the claim."""
    quotes: tuple[tuple[int, str], ...] = ()
    auto_cited: bool = False
    question: bool = False

    @property
    def citation_failed(self) -> bool:
        return bool(self.outside or self.not_found)

    @property
    def shown(self) -> Sentence:
        """The sentence with its holding citations, as the reader sees it (an unsupported
        sentence, shown only at ``loose``, keeps the citations it was written with)."""
        return Sentence(self.sentence.text,
                        self.cites if self.supported else self.sentence.cites)


def check_sentence(sentence: Sentence, texts: Sequence[str], verifier: Verifier
                   ) -> SentenceVerdict:
    """``texts[n - 1]`` is the text source ``n`` showed the generator."""
    threshold = support_threshold(verifier)
    n_sources = len(texts)
    outside = tuple(n for n in sentence.cites if not 1 <= n <= n_sources)
    valid = tuple(dict.fromkeys(n for n in sentence.cites if 1 <= n <= n_sources))
    if not valid:
        if is_question(sentence) and not outside:
            return SentenceVerdict(sentence, 0.0, False, (), question=True)
        return _uncited(sentence, texts, verifier, threshold, outside)
    support = _score(verifier, sentence.text, [texts[n - 1] for n in valid])
    if len(valid) == 1:
        per = {valid[0]: support}
    else:
        per = {n: _score(verifier, sentence.text, [texts[n - 1]]) for n in valid}
    # Unsupported: none of its citations holds. Supported: a co-cited source that alone
    # scores under half the threshold does not contain the claim.
    weak = tuple(n for n in valid if per[n] < threshold / 2)
    not_found = valid if support < threshold else weak
    holding = tuple(n for n in valid if n not in not_found)
    supported = support >= threshold and bool(holding)
    quotes = tuple((n, best_sentence(sentence.text, texts[n - 1])) for n in holding)
    return SentenceVerdict(sentence, support, supported, holding, outside, not_found, quotes)


def _uncited(sentence: Sentence, texts: Sequence[str], verifier: Verifier, threshold: float,
             outside: tuple[int, ...]) -> SentenceVerdict:
    if not texts:
        return SentenceVerdict(sentence, 0.0, False, (), outside)
    scores = [(_score(verifier, sentence.text, [t]), -n) for n, t in enumerate(texts, start=1)]
    best, neg_n = max(scores)
    n = -neg_n
    if best < threshold:
        return SentenceVerdict(sentence, best, False, (), outside)
    return SentenceVerdict(sentence, best, True, (n,), outside,
                           quotes=((n, best_sentence(sentence.text, texts[n - 1])),),
                           auto_cited=True)


def _score(verifier: Verifier, sentence: str, texts: Sequence[str]) -> float:
    value = float(verifier.check(sentence, texts))
    return min(1.0, max(0.0, value))

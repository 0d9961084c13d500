"""Terminology questions: "what is X", "what does X mean / stand for", in abstain's 7 languages,
and the spans of a question that may be a vocabulary's labels.

:func:`asked_term` returns the X of a question that asks only what a term is (at most
:data:`MAX_TERM_WORDS` words, leading articles dropped); longer questions are ordinary ones.
:func:`spans` cuts a question into the word n-grams that are looked up as label keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from abstain.stores.vocab_base import label_key

MAX_TERM_WORDS = 6
"""Longer "what is …" questions ask about something else than a term."""
MAX_SPAN_WORDS = 6
"""Labels longer than this many words are not looked for inside ordinary questions."""

_ARTICLES = (r"(?:(?:a|an|the|ein|eine|einen|der|die|das|un|une|le|la|les|l'|l’|el|los|las|"
             r"una|unos|unas|een|de|het|bir)\s+|l['’])?")
_T = rf"{_ARTICLES}[\"'“‘«`]?(?P<t>[^?!;:]+?)[\"'”’»`]?"
_END = r"\s*[?？!.]*\s*$"
_PATTERNS = [re.compile(p, re.IGNORECASE) for p in (
    # en
    rf"^what\s+is\s+the\s+(?:meaning|definition)\s+of\s+{_T}{_END}",
    rf"^(?:what|who)(?:'s|’s|\s+is|\s+are|\s+was|\s+were)\s+(?:meant\s+by\s+)?{_T}{_END}",
    rf"^what\s+(?:does|do)\s+{_T}\s+(?:mean|stand\s+for|refer\s+to){_END}",
    rf"^(?:define|definition\s+of|meaning\s+of|explain\s+the\s+term)\s+{_T}{_END}",
    # de
    rf"^(?:was|wer)\s+(?:ist|sind)\s+{_T}{_END}",
    rf"^was\s+(?:bedeutet|heißt|heisst|meint\s+man\s+mit)\s+{_T}{_END}",
    rf"^wofür\s+steht\s+{_T}{_END}",
    # fr
    rf"^qu['’]est[- ]ce\s+(?:que|qu['’])\s*(?:c['’]est\s+(?:que\s+)?)?{_T}{_END}",
    rf"^que\s+(?:signifie|veut\s+dire)\s+{_T}{_END}",
    rf"^(?:qu['’]|que\s+)est\s+{_T}{_END}",
    # es
    rf"^¿?\s*(?:qué|que)\s+(?:es|son|significa|quiere\s+decir)\s+{_T}{_END}",
    # nl
    rf"^wat\s+(?:is|zijn|betekent|bedoelt\s+men\s+met)\s+{_T}{_END}",
    rf"^waar\s+staat\s+{_T}\s+voor{_END}",
    # tr
    rf"^{_T}\s+(?:nedir|ne\s+demek(?:tir)?|ne\s+anlama\s+gelir){_END}",
    # zh
    r"^(?:什么是|何谓)\s*(?P<t>[^?？。]+?)\s*[?？。]*\s*$",
    r"^(?P<t>[^?？。]+?)\s*(?:是什么意思|是什么|指的是什么|是指什么)\s*[?？。]*\s*$",
)]


def asked_term(question: str) -> str | None:
    """The term a "what is X" question asks about, as written; None for other questions."""
    text = " ".join(question.split())
    if not text or "\n" in question.strip():
        return None
    for pattern in _PATTERNS:
        match = pattern.match(text)
        if match:
            term = match["t"].strip(" \"'“”‘’«»`")
            words = term.split()
            if term and len(words) <= MAX_TERM_WORDS and label_key(term):
                return term
    return None


def term_keys(term: str) -> list[str]:
    """The label keys a term may be stored under: as is, and without a plural ending."""
    key = label_key(term)
    keys = [key]
    if len(key) > 3 and key.endswith("s") and not key.endswith("ss"):
        keys.append(key[:-1])
    return keys


@dataclass(frozen=True, slots=True)
class Span:
    """Consecutive words of a question: where they are and their label key."""

    start: int
    end: int
    text: str
    key: str

    @property
    def acronym(self) -> bool:
        """Written in capitals (``CMZ``): matches only a label in capitals (never "it" for IT)."""
        letters = [c for c in self.text if c.isalpha()]
        return len(letters) >= 2 and all(c.isupper() for c in letters)


def spans(text: str, max_words: int = MAX_SPAN_WORDS) -> list[Span]:
    """Every run of 1 to ``max_words`` consecutive words of ``text`` (dotted acronyms
    ``C.M.Z.`` stay one run of letters)."""
    words = [(m.start(), m.end()) for m in re.finditer(r"[^\W_]+", text)]
    out: list[Span] = []
    for i in range(len(words)):
        for j in range(i, min(len(words), i + max_words)):
            start, end = words[i][0], words[j][1]
            piece = text[start:end]
            if j > i and re.search(r"[,;:!?()\[\]]", piece):
                break
            key = label_key(piece)
            if key:
                out.append(Span(start, end, piece, key))
    return out


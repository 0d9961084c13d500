"""Rule-based perturbations in the style of FactCC and SQuAD 2.0's own negatives.

A perturbed question no longer matches the sentence that answered it (another
entity, another number, negated, antonym); a perturbed sentence is no longer
supported by the sentence it came from. All functions take a seeded
``random.Random`` and return ``None`` when no rule applies.
"""

from __future__ import annotations

import random
import re

ENTITY = re.compile(r"(?<!^)(?<![.?!] )\b(?:[A-Z][\w'-]+)(?:\s+(?:of\s+|the\s+)?[A-Z][\w'-]+)*")
NUMBER = re.compile(r"\b\d[\d,.]*\b")
AUXILIARY = re.compile(r"\b(is|are|was|were|did|does|do|can|could|has|have|had|will|would|"
                       r"should|must)\b(?! not\b)", re.IGNORECASE)
NEGATED = re.compile(r"\b(is|are|was|were|did|does|do|can|could|has|have|had|will|would|"
                     r"should|must) not\b", re.IGNORECASE)
ANTONYMS = {
    "first": "last", "largest": "smallest", "biggest": "smallest", "highest": "lowest",
    "most": "least", "earliest": "latest", "before": "after", "increase": "decrease",
    "increased": "decreased", "more": "less", "longest": "shortest", "best": "worst",
    "major": "minor", "older": "younger", "oldest": "youngest", "early": "late",
    "north": "south", "east": "west", "win": "lose", "won": "lost", "large": "small",
    "strong": "weak", "rise": "fall", "rose": "fell", "accepted": "rejected",
    "allowed": "forbidden", "success": "failure", "successful": "unsuccessful",
    "positive": "negative", "higher": "lower", "maximum": "minimum", "begin": "end",
    "began": "ended", "start": "end", "started": "ended", "open": "closed", "true": "false",
    "inside": "outside", "always": "never", "gained": "lost", "supported": "opposed",
    "internal": "external", "import": "export", "private": "public", "modern": "ancient",
}
ANTONYMS.update({v: k for k, v in list(ANTONYMS.items()) if v not in ANTONYMS})
_WORD = re.compile(r"\b(" + "|".join(sorted(ANTONYMS, key=len, reverse=True)) + r")\b",
                   re.IGNORECASE)


def entities(text: str) -> list[str]:
    return [m.group(0) for m in ENTITY.finditer(text)]


def swap_entity(text: str, keep_in: str, pool: list[str], rng: random.Random) -> str | None:
    """Replace an entity of ``text`` that occurs in ``keep_in`` with one from ``pool`` that does
    not, so the result asks or claims something ``keep_in`` does not state."""
    own = [e for e in entities(text) if e in keep_in]
    others = [p for p in pool if p not in keep_in and p not in text and len(p) > 2]
    if not own or not others:
        return None
    old, new = rng.choice(own), rng.choice(others)
    return text.replace(old, new, 1)


def swap_number(text: str, keep_in: str, rng: random.Random) -> str | None:
    found = [m for m in NUMBER.finditer(text) if m.group(0) in keep_in]
    if not found:
        return None
    m = rng.choice(found)
    digits = m.group(0).replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return None
    if value.is_integer() and 1000 <= value <= 2100:  # a year
        new = str(int(value) + rng.choice([-30, -12, -7, -3, 3, 7, 12, 30]))
    elif value.is_integer():
        new = str(max(0, int(value * rng.choice([0.5, 2, 3, 10])) + rng.choice([1, 2, 5])))
    else:
        new = f"{value * rng.choice([0.5, 2.0, 3.0]):.2f}".rstrip("0").rstrip(".")
    if new in keep_in:
        return None
    return text[:m.start()] + new + text[m.end():]


def negate(text: str, rng: random.Random) -> str | None:
    """Add 'not' after an auxiliary, or remove an existing 'not'."""
    neg = list(NEGATED.finditer(text))
    if neg:
        m = rng.choice(neg)
        return text[:m.start()] + m.group(1) + text[m.end():]
    aux = list(AUXILIARY.finditer(text))
    if not aux:
        return None
    m = rng.choice(aux)
    return text[:m.end()] + " not" + text[m.end():]


def antonym(text: str, rng: random.Random) -> str | None:
    found = list(_WORD.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    word = m.group(0)
    new = ANTONYMS[word.lower()]
    if word[0].isupper():
        new = new.capitalize()
    return text[:m.start()] + new + text[m.end():]


def perturb(text: str, keep_in: str, pool: list[str], rng: random.Random,
            negation_rate: float = 0.35) -> tuple[str, str] | None:
    """One perturbation: entity, number or antonym swap in a random order; failing those,
    negation (with probability ``negation_rate``, so 'not' does not become a shortcut)."""
    rules = ["entity", "number", "antonym"]
    rng.shuffle(rules)
    for rule in rules:
        if rule == "entity":
            out = swap_entity(text, keep_in, pool, rng)
        elif rule == "number":
            out = swap_number(text, keep_in, rng)
        else:
            out = antonym(text, rng)
        if out and out != text:
            return out, rule
    if rng.random() < negation_rate:
        out = negate(text, rng)
        if out and out != text:
            return out, "negation"
    return None


def shorten(sentence: str, rng: random.Random) -> str | None:
    """A claim the sentence still supports: one of its comma-separated clauses (≥ 6 words)."""
    parts = [p.strip() for p in re.split(r",\s+|;\s+|\s+\(.*?\)", sentence) if p]
    parts = [p for p in parts if len(p.split()) >= 6]
    if len(parts) < 2:
        return None
    part = rng.choice(parts)
    return part[0].upper() + part[1:] + ("" if part.endswith(".") else ".")

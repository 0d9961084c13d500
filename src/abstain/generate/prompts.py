"""Prompts for the LLM steps, and the context budget.

* :func:`cited_answer_messages` — answer only from numbered sources, every claim
  cited as ``[n]``; when no source applies, ask a clarifying question instead
  of stretching a weak match.
* :func:`clarify_messages` — no sources at all: ask one short question.
* :func:`rewrite_messages` — turn a message into a search query (optional).
* :func:`rerank_messages` — grade each source 0–3 for the question (optional).

Token counts here are *approximate*: one token is taken as four characters
(:func:`approx_tokens`), which is close for English prose and errs long for
code. The budget keeps the numbered sources within ``context_tokens``: sources
are taken in rank order, the first one is truncated if it alone is too long,
and later ones that do not fit are left out (the caller records how many).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from abstain.evidence import Evidence

CHARS_PER_TOKEN = 4
DEFAULT_CONTEXT_TOKENS = 2000
RERANK_MAX = 3
RERANK_THRESHOLD = 2

Message = dict[str, str]

ANSWER_SYSTEM = (
    "You answer questions using only the numbered sources given to you.\n"
    "Rules:\n"
    "- Every sentence of your answer states a fact from the sources and ends with the "
    "number of its source in brackets, like [1] or [2].\n"
    "- Never add facts, numbers or names that are not in the sources.\n"
    "- If none of the sources answers the question, do not guess from a source that is only "
    "loosely related: write one short clarifying question instead, with no brackets.\n"
    "- Be brief: at most three sentences."
)
SMALL_ANSWER_SYSTEM = (
    "Answer from the sources. End each sentence with its source number, like [1]. "
    "If the sources do not answer the question, ask a short question instead."
)
"""For models of a few hundred million parameters, which lose the thread in longer rules."""
CLARIFY_SYSTEM = (
    "No documents matched the user's message. Do not answer it and do not state any facts. "
    "Write one short question that asks the user what exactly they need, so that the "
    "documents can be searched again."
)
REWRITE_SYSTEM = (
    "Rewrite the user's message as a short search query for a documentation search engine. "
    "Keep every name, number, version and identifier exactly as written. "
    "Reply with the query only, on one line."
)
RERANK_SYSTEM = (
    "Grade how well each numbered passage answers the question, on this scale:\n"
    "0 = unrelated; 1 = same topic but does not answer; 2 = answers part of it; "
    "3 = answers it directly.\n"
    "Reply with one line per passage in the form `n: grade`, nothing else."
)


def approx_tokens(text: str) -> int:
    """Approximate token count: characters / 4, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def context_texts(evidence: Sequence[Evidence]) -> list[str]:
    """The text each numbered source shows: its section, or only the passage when an
    earlier source already showed that section. The verifier checks against these."""
    shown: set[str] = set()
    texts: list[str] = []
    for ev in evidence:
        parent = ev.parent_text.strip()
        if parent and parent not in shown and ev.text.strip() in parent:
            shown.add(parent)
            texts.append(parent)
        else:
            texts.append(ev.text)
    return texts


@dataclass(frozen=True, slots=True)
class Context:
    texts: tuple[str, ...]
    """What the model sees for sources 1..len(texts), possibly truncated."""
    dropped: int
    """Sources left out because the budget ran out."""
    truncated: bool
    tokens: int

    def note(self, budget: int) -> str | None:
        if not self.dropped and not self.truncated:
            return None
        what = []
        if self.truncated:
            what.append("source 1 truncated")
        if self.dropped:
            what.append(f"{self.dropped} source(s) left out")
        return (f"context budget {budget} tokens (approx. chars/4): " + ", ".join(what))


def fit_context(texts: Sequence[str], max_tokens: int) -> Context:
    kept: list[str] = []
    used = 0
    truncated = False
    for text in texts:
        cost = approx_tokens(text)
        if used + cost <= max_tokens:
            kept.append(text)
            used += cost
        elif not kept:
            kept.append(text[: max_tokens * CHARS_PER_TOKEN])
            used, truncated = max_tokens, True
        else:
            break
    return Context(tuple(kept), len(texts) - len(kept), truncated, used)


def numbered(texts: Sequence[str]) -> str:
    """Sources as ``[n] text``, one block per line as the chunks hold them (a heading, a
    list item, a row, code lines), blank lines and runs of spaces dropped."""
    return "\n\n".join(f"[{n}] {_lines(t)}" for n, t in enumerate(texts, start=1))


def _lines(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def cited_answer_messages(question: str, context: Context, *,
                          system: str = ANSWER_SYSTEM) -> list[Message]:
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Sources:\n{numbered(context.texts)}\n\n"
                                    f"Question: {question}"},
    ]


def clarify_messages(question: str) -> list[Message]:
    return [{"role": "system", "content": CLARIFY_SYSTEM},
            {"role": "user", "content": question}]


def rewrite_messages(question: str) -> list[Message]:
    return [{"role": "system", "content": REWRITE_SYSTEM},
            {"role": "user", "content": question}]


def rerank_messages(question: str, texts: Sequence[str], *, max_chars: int = 700
                    ) -> list[Message]:
    passages = numbered([t[:max_chars] for t in texts])
    return [{"role": "system", "content": RERANK_SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nPassages:\n{passages}"}]


def parse_rewrite(reply: str, original: str, *, max_chars: int = 300) -> str | None:
    """The rewritten query, or None when the reply is unusable (empty, too long)."""
    line = next((ln.strip() for ln in reply.strip().splitlines() if ln.strip()), "")
    line = re.sub(r"^(?:search\s+)?query\s*:\s*", "", line, flags=re.IGNORECASE).strip(" \"'`")
    if not line or len(line) > max(max_chars, 2 * len(original)):
        return None
    return line


_GRADE = re.compile(r"^\s*\[?(\d{1,3})\]?\s*[:=\-–)]\s*\[?([0-3])\b", re.MULTILINE)


def parse_rerank(reply: str, n: int) -> dict[int, int] | None:
    """Grades by 1-based passage number; None unless at least half the passages got one.
    Passages the reply skipped get 0."""
    grades: dict[int, int] = {}
    for match in _GRADE.finditer(reply):
        number, grade = int(match.group(1)), int(match.group(2))
        if 1 <= number <= n and number not in grades:
            grades[number] = grade
    if n == 0 or len(grades) * 2 < n:
        return None
    return {i: grades.get(i, 0) for i in range(1, n + 1)}

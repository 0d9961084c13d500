"""The faithfulness score and the strictness slider.

After surgical correction the answer gets one number in [0, 1]::

    base         = (0.5·S + 0.3·R + 0.2·G) / (sum of the weights of the parts present)
    faithfulness = base · (0.5 + 0.5·K)

    S  support:    mean support score of the sentences kept in the answer
    R  retrieval:  mean over the sources those sentences cite of the chunk confidence
                   (0–100 → 0–1; the LLM rerank grade / 3 when the LLM reranker graded
                   them; the calibrated answer confidence for a chunk without either)
    G  generation: exp(mean token log-probability) — the geometric-mean token
                   probability — when the server returned logprobs; otherwise left out
    K  kept share: kept sentences / claim sentences written (1 when nothing was removed)

K keeps a heavily corrected answer from looking clean: removing one sentence of
three costs a sixth of the score. Below the strictness threshold the answer
becomes a refusal with reason ``low_faithfulness``.
"""

from __future__ import annotations

import math
from enum import StrEnum

from abstain.errors import ConfigError

WEIGHTS = {"support": 0.5, "retrieval": 0.3, "generation": 0.2}
_THRESHOLDS = {"loose": 0.0, "balanced": 0.5, "strict": 0.7, "paranoid": 0.9}


class Strictness(StrEnum):
    """How faithful an answer must be to be returned.

    ``loose`` 0 never refuses and removes nothing (verification is informational);
    ``balanced`` 0.5 (default), ``strict`` 0.7 and ``paranoid`` 0.9 remove
    unsupported sentences, then refuse below the threshold. ``strict`` and
    ``paranoid`` need a verifier.
    """

    LOOSE = "loose"
    BALANCED = "balanced"
    STRICT = "strict"
    PARANOID = "paranoid"

    @property
    def threshold(self) -> float:
        return _THRESHOLDS[self.value]

    @property
    def needs_verifier(self) -> bool:
        return self in (Strictness.STRICT, Strictness.PARANOID)

    @property
    def corrects(self) -> bool:
        """Whether unsupported sentences are removed from the text."""
        return self is not Strictness.LOOSE

    @classmethod
    def parse(cls, value: Strictness | str) -> Strictness:
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ConfigError(f"unknown strictness {value!r}; choose from "
                              f"{', '.join(s.value for s in cls)}") from None


def generation_score(logprob: float | None) -> float | None:
    if logprob is None or math.isnan(logprob):
        return None
    return min(1.0, max(0.0, math.exp(logprob)))


def faithfulness(support: float, retrieval: float, logprob: float | None, kept_share: float
                 ) -> tuple[float, dict[str, float | None]]:
    """The score and its components (see the module docstring)."""
    generation = generation_score(logprob)
    parts = {"support": support, "retrieval": retrieval, "generation": generation}
    present = {k: v for k, v in parts.items() if v is not None}
    base = sum(WEIGHTS[k] * v for k, v in present.items()) / sum(WEIGHTS[k] for k in present)
    score = min(1.0, max(0.0, base * (0.5 + 0.5 * kept_share)))
    components: dict[str, float | None] = {
        "support": round(support, 4), "retrieval": round(retrieval, 4),
        "generation": None if generation is None else round(generation, 4),
        "generation_logprob": None if logprob is None else round(logprob, 4),
        "kept_share": round(kept_share, 4),
    }
    return round(score, 4), components


def describe(components: dict[str, float | None]) -> str:
    terms = [f"{WEIGHTS[k]:g}·{k} {components[k]:.2f}" for k in WEIGHTS
             if components.get(k) is not None]
    return f"({' + '.join(terms)}) / weights × (0.5 + 0.5·kept {components['kept_share']:.2f})"

"""Recipes of the v2 reader (three heads, SQuAD 2.0 train + SNLI): what goes into the
training set (:mod:`abstain.train.trainset`) and how it trains (:mod:`abstain.train.loop`).

Plain values only, so the machine that trains reads a recipe back from the training set's
metadata with nothing but the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any


@dataclass(frozen=True)
class Recipe:
    """What goes into the set and how the model trains on it (``abstain.train.loop``)."""

    name: str
    notes: str = ""
    max_articles: int | None = None
    """Train articles used (None: all 442 less the held-out share)."""
    holdout: float = 0.05
    """Share of train articles kept out of training (seeded hash of the title)."""
    own_negatives: float = 0.6
    mined_negatives: float = 0.4
    perturbations: bool = True
    relevance_rate: float = 0.5
    """Share of questions that also give relevance pairs (1 positive, 2 negatives)."""
    snli: int | None = None
    """SNLI pairs used (None: all 19,666)."""
    support_synthetic: int = 24
    """Synthetic support sentences per article."""
    val_articles: int | None = None
    """Dev articles used for validation (None: all 19)."""
    val_questions: int | None = None
    # -- training -------------------------------------------------------------
    max_length: int = 128
    """Tokens of a question/claim × window pair (answers, supports)."""
    passage_length: int = 192
    """Tokens of a question × paragraph pair (relevance)."""
    epochs: int = 3
    batch_size: int = 128
    lr: float = 1e-4
    freeze_layers: int = 0
    max_steps: int | None = None
    time_budget_s: float = 360.0
    """Training stops by then (per run)."""
    fit_schedule: bool = True
    """True: after a few timed steps the learning-rate schedule is fitted to the steps that fit
    the budget (one run does it all). False: the schedule spans every planned step and each run
    stops at the budget, to be resumed by the next (CPU)."""
    checkpoint_every_s: float = 60.0
    listwise: float = 0.0
    """Weight of a listwise term beside the pointwise loss: each step also reads
    ``listwise_questions`` users' questions against their answering windows and the others of
    their pages (:func:`abstain.train.loop.question_groups`), and the loss is the softmax's
    cross-entropy over each question's windows, the answering ones as targets: the reader learns
    to *choose* the window that answers among its siblings, not only to score each alone."""
    listwise_questions: int = 8
    in_context: bool = False
    """Answers-head windows are read after their page title and headings
    (:func:`abstain.rerank.windows.in_context`: the users' pages, SQuAD's article titles), and
    the exported file says so, so that abstain reads them the same way."""
    extra: dict[str, float] = field(default_factory=dict)

    def max_lengths(self) -> tuple[int, int, int]:
        return self.max_length, self.max_length, self.passage_length


RECIPES = {
    "squad2-full": Recipe(
        "squad2-full", notes="all train articles less 5% held out, both perturbation and BM25 "
        "negatives, relevance on half the questions, all SNLI; 4 epochs or what fits 5.5 "
        "minutes of one GPU", epochs=4, time_budget_s=330.0),
    "squad2-cpu": Recipe(
        "squad2-cpu", notes="the same pairs sized for 2 CPU cores: 60 articles, frozen lower "
        "layers, short budget per run, resumed run after run",
        max_articles=60, snli=3000, relevance_rate=0.3, max_length=96, passage_length=160,
        epochs=1, batch_size=16, lr=5e-5, freeze_layers=3, time_budget_s=1800.0,
        fit_schedule=False,
        checkpoint_every_s=300.0, val_articles=4, val_questions=400),
    "squad2-smoke": Recipe(
        "squad2-smoke", notes="the whole path at tiny scale (minutes on a CPU)",
        max_articles=2, snli=120, support_synthetic=6, relevance_rate=0.3, max_length=64,
        passage_length=96, epochs=1, batch_size=8, max_steps=30, freeze_layers=3,
        time_budget_s=240.0, checkpoint_every_s=30.0, val_articles=1, val_questions=60),
    "docs-cpu": Recipe(
        "docs-cpu", notes="v3 on 2 busy CPU cores: v2 fine-tuned on the documentation pairs "
        "(abstain.train.docpairs) mixed with 16 SQuAD articles and 1,500 SNLI pairs, layers 0-3 "
        "frozen, 128-token windows, 270 steps of 16 or 38 minutes (9 s/step measured with the "
        "machine shared: 1.8 pairs/s)",
        max_articles=16, snli=1500, support_synthetic=12, relevance_rate=0.3, max_length=128,
        passage_length=160, epochs=1, batch_size=16, lr=4e-5, freeze_layers=4, max_steps=270,
        time_budget_s=2280.0, fit_schedule=False, checkpoint_every_s=240.0, val_articles=4,
        val_questions=400,
        extra={"docs": 1.0}),
}
RECIPES["docs-cpu-long"] = replace(
    RECIPES["docs-cpu"], name="docs-cpu-long",
    notes="docs-cpu's pairs, trained on from its step-257 checkpoint (weights and AdamW moments) "
    "with a fresh linear decay from the peak rate to zero at max_steps, sized to a 65-minute "
    "budget on 2 shared CPU cores (s/step measured in the run's first minutes)",
    max_steps=840, time_budget_s=3900.0)
"""Same pairs as docs-cpu (``same_pairs``), so it trains docs-cpu's saved set."""
RECIPES["docs-gpu"] = Recipe(
    "docs-gpu", notes="v3 on a lent GPU: v2 (the shipped file, dequantized on the machine) "
    "fine-tuned with every layer but the word embeddings on all of v2's SQuAD 2.0 / SNLI pairs "
    "plus every documentation training pair three times (about a fifth of the mix); 2 epochs or "
    "what fits 4 minutes; validation as docs-cpu's (4 SQuAD dev articles, 500 held-out "
    "documentation questions)",
    max_length=128, passage_length=192, epochs=2, batch_size=128, lr=5e-5,
    time_budget_s=240.0, val_articles=4, val_questions=400, extra={"docs": 3.0})
RECIPES["docs-gpu-gentle"] = replace(
    RECIPES["docs-gpu"], name="docs-gpu-gentle",
    notes="docs-gpu's pairs, one epoch at a lower rate (3e-5) or what fits 2 minutes: how "
    "much of v2 a lighter touch keeps", epochs=1, lr=3e-5, time_budget_s=120.0)

RECIPES["docs-users-cpu"] = replace(
    RECIPES["docs-cpu"], name="docs-users-cpu",
    notes="v2 fine-tuned on 2 busy CPU cores on questions users ask of real documentation "
    "(abstain.train.userpairs: every window of the answering page, the one holding the answer "
    "key positive, its siblings negative; near misses against their closest windows), "
    "mixed with a tenth of the templated documentation pairs, 8 SQuAD articles and 800 SNLI "
    "pairs; layers 0-3 frozen, 128-token windows, what fits the budget",
    max_articles=8, snli=800, support_synthetic=8, max_steps=600, time_budget_s=1500.0,
    checkpoint_every_s=300.0, extra={"docs": 1.0, "docs_share": 0.1, "users": 1.0})
RECIPES["docs-users-cpu-long"] = replace(
    RECIPES["docs-users-cpu"], name="docs-users-cpu-long",
    notes="docs-users-cpu's pairs, trained on from its step-600 checkpoint (weights and AdamW "
    "moments) to the end of the set's one epoch (step 1,845 of 16 pairs) with the linear decay "
    "spread over the new total: a 60-minute budget on 2 shared CPU cores at the 11 pairs/s "
    "measured (the run took 29 minutes)",
    max_steps=2400, time_budget_s=3600.0)
"""Same pairs as docs-users-cpu (``same_pairs``), so it trains docs-users-cpu's saved set."""
RECIPES["docs-users-cpu-2"] = replace(
    RECIPES["docs-users-cpu"], name="docs-users-cpu-2",
    notes="docs-users-cpu-long's model trained on for a second epoch of the same pairs (steps "
    "1,846-3,690, the linear decay spread over the new total), under 2 shared CPU cores",
    epochs=2, max_steps=None, time_budget_s=3600.0)
"""Same pairs as docs-users-cpu (``same_pairs``)."""
RECIPES["docs-users-gpu"] = replace(
    RECIPES["docs-gpu"], name="docs-users-gpu",
    notes="docs-gpu's mix plus the users' questions of real documentation "
    "(abstain.train.userpairs) eight times: the passage-choice data the templated questions "
    "lack; 2 epochs or what fits 4 minutes of one GPU",
    extra={"docs": 3.0, "users": 8.0})

RECIPES["docs-users-context-cpu"] = replace(
    RECIPES["docs-users-cpu"], name="docs-users-context-cpu",
    notes="the shipped reader (v3) taught to read in context on 2 CPU cores: every users' window "
    "and SQuAD window after its page title and headings, so that a question naming the product, "
    "the page or the section reads against what names them; the users' pairs once, 8 SQuAD "
    "articles, 800 SNLI pairs and a twentieth of the templated documentation pairs (plain, "
    "they carry no pages); layers 0-3 frozen, a lower rate (3e-5) than from v2, one epoch "
    "(3,842 steps of 16; 15 minutes at the 70 pairs/s measured on a quiet machine)",
    lr=3e-5, max_steps=None, time_budget_s=2700.0, in_context=True,
    extra={"docs": 1.0, "docs_share": 0.05, "users": 1.0})
RECIPES["docs-users-context-cpu-2"] = replace(
    RECIPES["docs-users-context-cpu"], name="docs-users-context-cpu-2",
    notes="docs-users-context-cpu's settings on the 83 train sets of 2026-11-27 (the 23 newest "
    "written with the default/values balance and the handbook register): one epoch from the "
    "shipped v3 (5,071 steps of 16)")
"""Builds its own set: the train sets on disk when it is built decide its pairs."""
RECIPES["docs-users-context-cpu-3"] = replace(
    RECIPES["docs-users-context-cpu-2"], name="docs-users-context-cpu-3",
    notes="docs-users-context-cpu-2's pairs (its saved set) with every layer trained but the word "
    "embeddings, as on a GPU: 3,000 steps of 16 (48,000 pairs, about 60 % of the epoch), the "
    "linear decay over them; is the frozen lower half what kept the CPU runs below v3?",
    freeze_layers=0, max_steps=3000)
RECIPES["docs-users-context-gpu"] = replace(
    RECIPES["docs-users-gpu"], name="docs-users-context-gpu",
    notes="docs-users-gpu's mix read in context (users' pages, SQuAD article titles; the "
    "templated documentation pairs stay plain), with the templated near misses that ask for a "
    "default cut to one per templated question that states one: the run the CPU recipe stands "
    "in for",
    in_context=True, extra={"docs": 3.0, "users": 8.0, "no_default_per_default": 1.0})
"""The templated "what is the default of X?" near misses cut to one per templated question that
states a default or its values (``v3._balance_defaults``)."""
RECIPES["docs-users-context-cpu-4"] = replace(
    RECIPES["docs-users-context-cpu-3"], name="docs-users-context-cpu-4",
    notes="the shipped reader (v4 when written; it reads in context) fine-tuned on 2 CPU "
    "cores on the train sets it never read (data/userdocs/READER.json lists those it did) with "
    "a quarter of the questions of the others, so that it keeps what it read; 8 SQuAD articles, "
    "800 SNLI pairs, a twentieth of the templated documentation pairs with v4's cut of their "
    "default near misses; every layer but the word embeddings, a gentler rate (2e-5) than from "
    "v3, one epoch or what fits 45 minutes",
    lr=2e-5, max_steps=None, time_budget_s=2700.0,
    extra={"docs": 1.0, "docs_share": 0.05, "users": 1.0, "users_seen_share": 0.25,
           "no_default_per_default": 1.0})
"""The CPU path when no GPU is lent: what the next GPU run would add, on these cores."""
RECIPES["docs-users-listwise-gpu"] = replace(
    RECIPES["docs-users-context-gpu"], name="docs-users-listwise-gpu",
    notes="docs-users-context-gpu's pairs (a set prepared for it trains with this recipe) with "
    "a listwise term: eight users' questions a step read against their answering windows and "
    "their pages' other windows, a softmax over each question's windows",
    listwise=1.0, listwise_questions=8)
RECIPES["docs-users-listwise-gpu-4"] = replace(
    RECIPES["docs-users-listwise-gpu"], name="docs-users-listwise-gpu-4",
    notes="docs-users-listwise-gpu with four questions' lists a step, not eight: more "
    "pointwise steps in the same time", listwise_questions=4)
RECIPES["docs-users-context-gpu-u2"] = replace(
    RECIPES["docs-users-context-gpu"], name="docs-users-context-gpu-u2",
    notes="docs-users-context-gpu's mix with the users' questions twice, not eight times: v5 "
    "reads each of the 152 train sets' pairs about seven times and reads those projects far "
    "better than any other (right vs wrong quotes 0.84 seen, 0.56 unseen); does reading them "
    "less, with the rest of the mix, read unseen documentation better?",
    extra={"docs": 3.0, "users": 2.0, "no_default_per_default": 1.0})
RECIPES["docs-users-context-gpu-u4"] = replace(
    RECIPES["docs-users-context-gpu-u2"], name="docs-users-context-gpu-u4",
    notes="docs-users-context-gpu-u2 with the users' questions four times: the middle of the dose",
    extra={"docs": 3.0, "users": 4.0, "no_default_per_default": 1.0})
RECIPES["docs-users-gpu-2"] = replace(
    RECIPES["docs-users-context-gpu"], name="docs-users-gpu-2",
    notes="docs-users-context-gpu's pairs read plain (no page title or headings before a "
    "window), as v3 read: with the same 106 projects' users' questions and the same cut of the "
    "templated default near misses, does reading in context or the data move the model?",
    in_context=False)


PAIR_FIELDS = ("max_articles", "holdout", "own_negatives", "mined_negatives", "perturbations",
               "relevance_rate", "snli", "support_synthetic", "val_articles", "val_questions",
               "passage_length", "in_context", "extra")
"""The fields that decide the training set's content; the others only how it trains."""


def from_dict(raw: dict[str, Any]) -> Recipe:
    """A recipe as saved in a training set's metadata (unknown keys ignored)."""
    names = {f.name for f in fields(Recipe)}
    return Recipe(**{k: v for k, v in raw.items() if k in names})


def for_set(raw: dict[str, Any]) -> Recipe:
    """The recipe to train a saved set with: this checkout's recipe of that name when it builds
    the same pairs (its training settings may have changed since), else the saved one."""
    saved = from_dict(raw)
    current = RECIPES.get(saved.name)
    if current is not None and same_pairs(current, saved):
        return current
    return saved


def same_pairs(a: Recipe, b: Recipe) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in PAIR_FIELDS)

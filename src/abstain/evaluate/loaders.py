"""Built-in loaders for the benchmark sets in ``../shared/data``.

Each loader returns a :class:`~abstain.evaluate.data.Dataset`: the documents to
ingest and the labelled questions to ask, under a stated protocol.

squad2   collection = paragraphs of the even-indexed articles;
         answerable = answerable questions of those articles;
         near_miss = their unanswerable questions (topic present, fact absent);
         out_of_collection = answerable questions of the odd-indexed articles.
scifact  BEIR SciFact: 5,183 abstracts, the 300 test claims with their qrels
         (a retrieval benchmark: every question is ``answer``).
rgb      RGB ``en_fact``: all negative passages plus the positive passages of the
         odd-indexed queries; odd queries are answerable, even ones near misses.
qags     QAGS CNN/DM: the articles; each summary sentence is a claim, expected
         ``answer`` when 2 of 3 annotators found it supported, else ``refuse``.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from abstain.errors import ConfigError
from abstain.evaluate.data import CollectionDoc, Dataset, LabelledQuestion

ENV_DATA_DIR = "ABSTAIN_DATA_DIR"
DATASETS = ("squad2", "squad2-calibration", "scifact", "rgb", "qags")


def default_data_dir(environ: dict[str, str] | None = None) -> Path:
    """``$ABSTAIN_DATA_DIR``, else ``../shared/data`` beside the repository (or the cwd)."""
    env = os.environ if environ is None else environ
    if env.get(ENV_DATA_DIR):
        return Path(env[ENV_DATA_DIR])
    repo = Path(__file__).resolve().parents[3]
    for candidate in (repo / ".." / "shared" / "data", Path.cwd() / ".." / "shared" / "data"):
        if candidate.is_dir():
            return candidate.resolve()
    return (Path.cwd() / ".." / "shared" / "data").resolve()


def load_dataset(name: str, data_dir: str | Path | None = None) -> Dataset:
    loaders: dict[str, Callable[[Path], Dataset]] = {
        "squad2": load_squad2, "squad2-calibration": load_squad2_calibration,
        "scifact": load_scifact, "rgb": load_rgb, "qags": load_qags}
    if name not in loaders:
        raise ConfigError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    try:
        return loaders[name](root)
    except FileNotFoundError as exc:
        raise ConfigError(f"{name}: {exc.filename} not found; set --data-dir or "
                          f"{ENV_DATA_DIR}") from exc


def _open_text(path: Path) -> Any:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def load_squad2(root: Path) -> Dataset:
    """The gate benchmark (``squad2-dev-half``): never tune or train on it."""
    base = root / "squad2-dev-half" if (root / "squad2-dev-half").is_dir() else root
    with _open_text(base / "dev-v2.0.json.gz") as fh:
        articles = json.load(fh)["data"]
    return _squad2_protocol("squad2", articles)


CALIBRATION_HOLDOUT = (0.05, 13)
"""Share and seed of the SQuAD 2.0 train articles the v2 reader is trained without
(``abstain.train.trainset.held_out``, recipe squad2-full); they are what the gate and the
calibration are fitted on."""


def load_squad2_calibration(root: Path) -> Dataset:
    """The benchmark's protocol on the SQuAD 2.0 *train* articles the shipped reader never
    saw: for fitting the calibration and the gate's reader thresholds without touching the
    benchmark half."""
    from abstain.train.trainset import held_out

    base = root / "squad2-train-rebuilt" if (root / "squad2-train-rebuilt").is_dir() else root
    with _open_text(base / "train-v2.0.rebuilt.json.gz") as fh:
        articles = [a for a in json.load(fh)["data"]
                    if held_out(str(a["title"]), *CALIBRATION_HOLDOUT)]
    return _squad2_protocol("squad2-calibration", articles)


def _squad2_protocol(name: str, articles: list[dict[str, Any]]) -> Dataset:
    docs: list[CollectionDoc] = []
    questions: list[LabelledQuestion] = []
    for a_idx, article in enumerate(articles):
        title = str(article["title"])
        inside = a_idx % 2 == 0
        for p_idx, para in enumerate(article["paragraphs"]):
            source = f"squad2/{title}/{p_idx:03d}"
            if inside:
                docs.append(CollectionDoc(source, para["context"], title.replace("_", " ")))
            for qa in para["qas"]:
                answers = [a["text"] for a in qa.get("answers") or []]
                impossible = bool(qa.get("is_impossible"))
                if inside and not impossible:
                    q = LabelledQuestion(qa["question"], "answer", "answerable", (source,),
                                         answers[0] if answers else None, title)
                elif inside:
                    q = LabelledQuestion(qa["question"], "refuse", "near_miss", (), None, title)
                elif not impossible:
                    q = LabelledQuestion(qa["question"], "refuse", "out_of_collection", (),
                                         None, title)
                else:
                    continue
                questions.append(q)
    return Dataset(name, tuple(docs), tuple(questions),
                   "collection = paragraphs of even-indexed articles; answerable / near_miss = "
                   "their answerable / unanswerable questions; out_of_collection = answerable "
                   "questions of odd-indexed articles", _counts(questions))


def load_scifact(root: Path) -> Dataset:
    base = root / "beir-scifact" if (root / "beir-scifact").is_dir() else root
    docs: list[CollectionDoc] = []
    with _open_text(base / "corpus.jsonl.gz") as fh:
        for line in fh:
            row = json.loads(line)
            docs.append(CollectionDoc(str(row["_id"]), str(row["text"]) or str(row["title"]),
                                      str(row.get("title") or row["_id"])))
    qrels: dict[str, list[str]] = {}
    with open(base / "qrels" / "test.tsv", encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            parts = line.rstrip("\n").split("\t")
            if n == 0 or len(parts) < 3 or int(parts[2]) <= 0:
                continue
            qrels.setdefault(parts[0], []).append(parts[1])
    questions: list[LabelledQuestion] = []
    with open(base / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            qid = str(row["_id"])
            if qid in qrels:
                questions.append(LabelledQuestion(str(row["text"]), "answer", "claim",
                                                  tuple(qrels[qid]), None, qid))
    return Dataset("scifact", tuple(docs), tuple(questions),
                   "BEIR SciFact test split: 300 claims, relevance from qrels/test.tsv",
                   _counts(questions))


def load_rgb(root: Path) -> Dataset:
    base = root / "rgb" if (root / "rgb").is_dir() else root
    docs: dict[str, CollectionDoc] = {}
    questions: list[LabelledQuestion] = []
    with _open_text(base / "en_fact.json") as fh:
        for n, line in enumerate(fh):
            if not line.strip():
                continue
            row = json.loads(line)
            qid = str(row["id"])
            answerable = n % 2 == 1
            gold: list[str] = []
            for kind in ("negative", "positive") if answerable else ("negative",):
                for p_idx, text in enumerate(row.get(kind) or []):
                    if isinstance(text, str) and text.strip() and text not in docs:
                        source = f"rgb/{qid}/{kind}-{p_idx}"
                        docs[text] = CollectionDoc(source, text, f"rgb {qid}")
                        if kind == "positive":
                            gold.append(source)
            answers = _rgb_answers(row.get("answer"))
            questions.append(LabelledQuestion(
                str(row["query"]), "answer" if answerable else "refuse",
                "answerable" if answerable else "near_miss", tuple(gold),
                answers[0] if answers else None, qid,
                answer_keys=answers if len(answers) > 1 else ()))
    return Dataset("rgb", tuple(docs.values()), tuple(questions),
                   "RGB en_fact: negatives of all queries + positives of odd queries; odd "
                   "queries answerable, even queries near_miss", _counts(questions))


def _rgb_answers(answer: object) -> tuple[str, ...]:
    """RGB's ``answer``: a string, or a list whose items are strings or lists of one
    answer's spellings (``[["July 21 2017", "Jul 21, 2017", …]]``), flattened in order."""
    if isinstance(answer, list):
        return tuple(dict.fromkeys(a for item in answer for a in _rgb_answers(item)))
    return (str(answer),) if answer is not None and str(answer).strip() else ()


def load_qags(root: Path) -> Dataset:
    base = root / "qags" if (root / "qags").is_dir() else root
    docs: list[CollectionDoc] = []
    questions: list[LabelledQuestion] = []
    with _open_text(base / "mturk_cnndm.jsonl") as fh:
        for a_idx, line in enumerate(fh):
            row = json.loads(line)
            source = f"qags/cnndm/{a_idx:03d}"
            docs.append(CollectionDoc(source, str(row["article"]), f"article {a_idx}"))
            for sent in row.get("summary_sentences") or []:
                votes = [r.get("response") for r in sent.get("responses") or []]
                supported = sum(v == "yes" for v in votes) * 2 > len(votes)
                questions.append(LabelledQuestion(
                    str(sent["sentence"]), "answer" if supported else "refuse",
                    "supported" if supported else "unsupported", (source,), None, source))
    return Dataset("qags", tuple(docs), tuple(questions),
                   "QAGS CNN/DM: summary sentences as claims against their articles; "
                   "supported = 2 of 3 annotators said yes", _counts(questions))


def _counts(questions: list[LabelledQuestion]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for q in questions:
        counts[q.category] = counts.get(q.category, 0) + 1
    return counts

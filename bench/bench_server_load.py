"""HTTP service under load: N concurrent clients on loopback, mixed answers and refusals.

Starts `abstain serve` in a subprocess on the full sample corpus (one key per
client, default rate limit on), then runs N asyncio clients for D seconds. Each
request is a random question from tests/data/sample_questions.jsonl (half
answerable, half not), sent to ``/ask`` (JSON) or ``/ask/stream`` (SSE) at random.
Meanwhile ``--uploaders`` clients each re-upload a small document to the same
workspace every second (writes in the mix). Reports errors (transport errors,
non-200, broken event order), p50/p95 latency per outcome (answered / refused)
and per endpoint, and from ``/ready``: how often the vector index was reloaded
and how many model calls the query embeddings took (micro-batching).

    python bench/bench_server_load.py [--clients 50] [--duration 120] [--uploaders 1]
                                      [--no-query-batching] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import httpx
from _common import ROOT, machine, percentiles, write_section

QUESTIONS = ROOT / "tests" / "data" / "sample_questions.jsonl"
CORPUS = ROOT / "src" / "abstain" / "sample_corpus"
WORKSPACE = "bench"


@dataclass(frozen=True)
class Sample:
    endpoint: str
    outcome: str
    """answered | refused | error"""
    latency_ms: float
    first_event_ms: float | None = None
    expected: str = ""
    error: str = ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def prepare(db: Path, keys_path: Path, clients: int) -> list[str]:
    from abstain.embed.minilm import MiniLMEmbedder
    from abstain.pipeline import Pipeline
    from abstain.server import KeyStore
    from abstain.stores.sqlite import SQLiteStore

    db.parent.mkdir(parents=True, exist_ok=True)
    with Pipeline(SQLiteStore(db), MiniLMEmbedder()) as pipe:
        report = pipe.ingest([CORPUS], workspace=WORKSPACE)
        print(f"corpus: {report.summary()}", file=sys.stderr)
    store = KeyStore(keys_path)
    keys = [store.create(workspace=WORKSPACE, label=f"client {i}")[1] for i in range(clients)]
    store.close()
    return keys


async def one_request(client: httpx.AsyncClient, rng: random.Random,
                      questions: list[dict[str, str]]) -> Sample:
    item = rng.choice(questions)
    stream = rng.random() < 0.5
    path = f"/v1/workspaces/{WORKSPACE}/ask" + ("/stream" if stream else "")
    endpoint = "sse" if stream else "json"
    started = time.perf_counter()
    try:
        if not stream:
            response = await client.post(path, json={"question": item["question"]})
            ms = (time.perf_counter() - started) * 1000
            if response.status_code != 200:
                return Sample(endpoint, "error", ms, error=f"HTTP {response.status_code}")
            outcome = "answered" if response.json()["answered"] else "refused"
            return Sample(endpoint, outcome, ms, expected=item["expected"])
        first_ms = None
        kinds: list[str] = []
        done: dict[str, object] = {}
        async with client.stream("POST", path, json={"question": item["question"]}) as resp:
            if resp.status_code != 200:
                await resp.aread()
                return Sample(endpoint, "error", (time.perf_counter() - started) * 1000,
                              error=f"HTTP {resp.status_code}")
            async for line in resp.aiter_lines():
                if line.startswith("event: "):
                    kinds.append(line[7:])
                    if first_ms is None:
                        first_ms = (time.perf_counter() - started) * 1000
                elif line.startswith("data: ") and kinds and kinds[-1] == "done":
                    done = json.loads(line[6:])
        ms = (time.perf_counter() - started) * 1000
        if not kinds or kinds[0] != "meta" or kinds[-1] != "done" or kinds.count("done") != 1:
            return Sample(endpoint, "error", ms, error=f"event order {kinds}")
        outcome = "answered" if done.get("answered") else "refused"
        return Sample(endpoint, outcome, ms, first_ms, expected=item["expected"])
    except httpx.HTTPError as exc:
        return Sample(endpoint, "error", (time.perf_counter() - started) * 1000,
                      error=type(exc).__name__)


async def run_clients(url: str, keys: list[str], questions: list[dict[str, str]],
                      duration: float, uploaders: list[str] | None = None) -> list[Sample]:
    samples: list[Sample] = []
    stop = time.monotonic() + duration

    async def upload_loop(n: int, key: str) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=120,
                                     headers={"Authorization": f"Bearer {key}"}) as client:
            version = 0
            while time.monotonic() < stop:
                version += 1
                started = time.perf_counter()
                response = await client.post(
                    f"/v1/workspaces/{WORKSPACE}/documents",
                    json={"source": f"bench-upload-{n}.md",
                          "text": f"# Upload {n}\n\nRevision {version} of a small note."})
                ms = (time.perf_counter() - started) * 1000
                samples.append(Sample("upload", "uploaded" if response.status_code == 201
                                      else "error", ms,
                                      error="" if response.status_code == 201
                                      else f"HTTP {response.status_code}"))
                await asyncio.sleep(1.0)

    async def client_loop(n: int, key: str) -> None:
        rng = random.Random(n)
        async with httpx.AsyncClient(base_url=url, timeout=120,
                                     headers={"Authorization": f"Bearer {key}"}) as client:
            while time.monotonic() < stop:
                samples.append(await one_request(client, rng, questions))

    await asyncio.gather(*(client_loop(n, key) for n, key in enumerate(keys)),
                         *(upload_loop(n, key) for n, key in enumerate(uploaders or [])))
    return samples


def start_server(db: Path, keys_path: Path, options: list[str]
                 ) -> tuple[subprocess.Popen[bytes], str]:
    """`abstain serve` on a free loopback port, ready; (the process, its URL)."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    abstain = Path(sys.executable).with_name("abstain")
    proc = subprocess.Popen([str(abstain), "serve", "--db", str(db), "--keys", str(keys_path),
                             "--port", str(port), "--log-level", "warning", *options],
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    wait_ready(url, proc)
    return proc, url


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit("the server did not become ready")


def report(samples: list[Sample], clients: int, duration: float,
           load: tuple[float, float], *, uploaders: int = 0, batching: bool = True,
           stats: tuple[dict[str, object], dict[str, object]] | None = None) -> str:
    errors = [s for s in samples if s.outcome == "error"]
    uploads = [s for s in samples if s.endpoint == "upload"]
    samples = [s for s in samples if s.endpoint != "upload"]
    rows = ["| outcome | endpoint | requests | p50 ms | p95 ms |", "|---|---|---:|---:|---:|"]
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in samples:
        if s.outcome != "error":
            groups[(s.outcome, s.endpoint)].append(s.latency_ms)
            groups[(s.outcome, "all")].append(s.latency_ms)
            if s.first_event_ms is not None:
                groups[(s.outcome, "sse: first event")].append(s.first_event_ms)
    for outcome in ("answered", "refused"):
        for endpoint in ("all", "json", "sse", "sse: first event"):
            values = groups.get((outcome, endpoint))
            if values:
                p50, p95 = percentiles(values)
                rows.append(f"| {outcome} | {endpoint} | {len(values)} | {p50:.0f} | {p95:.0f} |")
    if uploads:
        p50, p95 = percentiles([s.latency_ms for s in uploads])
        rows.append(f"| uploaded | json upload | {len(uploads)} | {p50:.0f} | {p95:.0f} |")
    server = ""
    if stats is not None:
        first, last = stats
        loads = _int(last.get("vector_index_loads")) - _int(first.get("vector_index_loads"))
        embeds = last.get("query_embeddings")
        start = first.get("query_embeddings")
        if isinstance(embeds, dict) and isinstance(start, dict):
            texts = _int(embeds["texts"]) - _int(start["texts"])
            calls = _int(embeds["model_calls"]) - _int(start["model_calls"])
            batched = f"{texts} query embeddings in {calls} model calls"
        else:
            batched = "query batching off (one model call per question)"
        server = (f"- Server: vector index loaded {loads} times during the run "
                  f"({len(uploads)} uploads); {batched}.")
    flags = (f" --uploaders {uploaders}" if uploaders else "") + \
        ("" if batching else " --no-query-batching")
    mismatched = sum(1 for s in samples if s.outcome != "error"
                     and (s.outcome == "answered") != (s.expected == "answer"))
    kinds = sorted({s.error for s in errors})
    return "\n".join([
        f"`python bench/bench_server_load.py --clients {clients} --duration {duration:.0f}"
        f"{flags}` — "
        f"{machine()}; server (`abstain serve`, SQLite, MiniLM int8) and clients on the same "
        "machine, over loopback; one key per client with the default rate limit. "
        f"1-minute load average {load[0]:.1f} before and {load[1]:.1f} after the run "
        "(other jobs share the machine).",
        "",
        f"- {len(samples)} requests in {duration:.0f} s ({len(samples) / duration:.1f} req/s), "
        f"{clients} concurrent clients, questions from tests/data/sample_questions.jsonl "
        "(30 answerable, 30 not), half JSON `/ask`, half SSE `/ask/stream`.",
        f"- **Errors: {len(errors)}**" + (f" ({', '.join(kinds)})" if kinds else "")
        + " (transport errors, non-200 responses, or a stream not ordered meta … done).",
        *([server] if server else []),
        f"- Outcome differs from the question's label in {mismatched} requests "
        "(a gate quality number, not a service error; see the evaluation benchmarks).",
        "",
        *rows,
        "",
        "Latency is measured at the client, from sending the request to the last byte, under "
        f"full load ({clients} requests in flight on 2 CPU cores), so it is mostly queueing: a "
        "refusal skips generation but still embeds the question and runs both search arms.",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=120.0)
    parser.add_argument("--uploaders", type=int, default=1,
                        help="Clients that each re-upload a small document every second.")
    parser.add_argument("--no-query-batching", action="store_true",
                        help="Run the server with --no-query-batching (the 'before' numbers).")
    parser.add_argument("--db", type=Path, default=ROOT / "bench" / "out" / "server_load.db")
    parser.add_argument("--write", action="store_true",
                        help="Write the numbers into docs/BENCHMARKS.md.")
    args = parser.parse_args()
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line]
    with tempfile.TemporaryDirectory(prefix="abstain-bench-") as tmp:
        keys_path = Path(tmp) / "keys.db"
        keys = prepare(args.db, keys_path, args.clients + args.uploaders)
        keys, upload_keys = keys[:args.clients], keys[args.clients:]
        proc, url = start_server(args.db, keys_path,
                                 ["--no-query-batching"] if args.no_query_batching else [])
        try:
            asyncio.run(run_clients(url, keys[:5], questions, 5.0))  # warm-up
            before = os.getloadavg()[0]
            first = httpx.get(f"{url}/ready", timeout=30).json()
            samples = asyncio.run(run_clients(url, keys, questions, args.duration,
                                              upload_keys))
            last = httpx.get(f"{url}/ready", timeout=30).json()
            after = os.getloadavg()[0]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    text = report(samples, args.clients, args.duration, (before, after),
                  uploaders=args.uploaders, batching=not args.no_query_batching,
                  stats=(first, last))
    print(text)
    if args.write:
        write_section("HTTP service load", text)


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) else 0


if __name__ == "__main__":
    main()

"""Soak: N clients for D minutes of mixed asks, streams and uploads against `abstain serve`.

Starts `abstain serve` in a subprocess on the sample corpus (SQLite, MiniLM int8, one
key per client, default rate limit), then runs the load of bench_server_load.py —
questions from tests/data/sample_questions.jsonl, half JSON ``/ask`` and half SSE
``/ask/stream`` — with ``--uploaders`` clients re-uploading documents of their own
(a new revision every second, so the store and the vector index keep changing). Every
``--sample`` seconds it reads the server's resident memory (RSS) and open file
descriptors from /proc. Reports errors, p50/p99 latency, requests per second, and the
server's RSS and file descriptors after the warm-up and at the end (and their peak),
so that a leak shows as growth.

    python bench/soak.py [--clients 50] [--minutes 10] [--uploaders 5] [--sample 10]

Figures go in docs/RELIABILITY.md (by hand: say how loaded the machine was).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np
from _common import ROOT, machine
from bench_server_load import QUESTIONS, Sample, prepare, run_clients, start_server


def process_stats(pid: int) -> tuple[float, int]:
    """(resident memory in MiB, open file descriptors) of a running process."""
    rss_kib = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss_kib = int(line.split()[1])
    return rss_kib / 1024, len(os.listdir(f"/proc/{pid}/fd"))


def sample_while(pid: int, every: float, stop: threading.Event,
                 out: list[tuple[float, float, int]]) -> None:
    started = time.monotonic()
    while not stop.wait(every):
        rss, fds = process_stats(pid)
        out.append((time.monotonic() - started, rss, fds))


def summary(samples: list[Sample], seconds: float, clients: int, uploaders: int,
            start: tuple[float, int], end: tuple[float, int],
            trace: list[tuple[float, float, int]], load: tuple[float, float]) -> str:
    errors = [s for s in samples if s.outcome == "error"]
    lines = [f"`python bench/soak.py --clients {clients} --minutes {seconds / 60:g} "
             f"--uploaders {uploaders}` — {machine()}; server and clients on the same machine; "
             f"1-minute load average {load[0]:.1f} before and {load[1]:.1f} after.", ""]
    lines.append(f"- {len(samples)} requests in {seconds:.0f} s "
                 f"({len(samples) / seconds:.1f} req/s); **errors: {len(errors)}**"
                 + (f" ({', '.join(sorted({e.error for e in errors}))})" if errors else ""))
    for endpoint in ("json", "sse", "upload"):
        ms = [s.latency_ms for s in samples if s.endpoint == endpoint and s.outcome != "error"]
        if ms:
            p50, p99 = np.percentile(ms, [50, 99])
            lines.append(f"- {endpoint}: {len(ms)} requests, p50 {p50:.0f} ms, p99 {p99:.0f} ms")
    peak_rss = max([start[0], end[0], *(r for _, r, _ in trace)])
    peak_fds = max([start[1], end[1], *(f for _, _, f in trace)])
    lines.append(f"- server RSS: {start[0]:.0f} MiB after the warm-up, {end[0]:.0f} MiB at the "
                 f"end (peak {peak_rss:.0f} MiB); open file descriptors: {start[1]} → {end[1]} "
                 f"(peak {peak_fds})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--uploaders", type=int, default=5,
                        help="Clients that each upload a new revision of their document "
                             "every second.")
    parser.add_argument("--sample", type=float, default=10.0,
                        help="Seconds between two readings of the server's RSS and fds.")
    parser.add_argument("--db", type=Path, default=ROOT / "bench" / "out" / "soak.db")
    args = parser.parse_args()
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line]
    if args.db.exists():
        args.db.unlink()
    with tempfile.TemporaryDirectory(prefix="abstain-soak-") as tmp:
        keys_path = Path(tmp) / "keys.db"
        keys = prepare(args.db, keys_path, args.clients + args.uploaders)
        keys, upload_keys = keys[:args.clients], keys[args.clients:]
        proc, url = start_server(args.db, keys_path, [])
        trace: list[tuple[float, float, int]] = []
        stop = threading.Event()
        try:
            asyncio.run(run_clients(url, keys[:5], questions, 10.0))  # warm-up
            start = process_stats(proc.pid)
            before = os.getloadavg()[0]
            sampler = threading.Thread(target=sample_while,
                                       args=(proc.pid, args.sample, stop, trace))
            sampler.start()
            seconds = args.minutes * 60
            samples = asyncio.run(run_clients(url, keys, questions, seconds, upload_keys))
            end = process_stats(proc.pid)
            after = os.getloadavg()[0]
            assert httpx.get(f"{url}/ready", timeout=30).status_code == 200
        finally:
            stop.set()
            proc.terminate()
            proc.wait(timeout=60)
    print(summary(samples, seconds, args.clients, args.uploaders, start, end, trace,
                  (before, after)))
    print("RSS / fds over time: " + ", ".join(f"{t:.0f}s {r:.0f}MiB {f}fd"
                                              for t, r, f in trace))


if __name__ == "__main__":
    main()

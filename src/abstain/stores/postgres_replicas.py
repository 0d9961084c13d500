"""Read replicas for the PostgreSQL store: questions on replicas, writes on the primary.

``PostgresStore(primary_url, replicas=[…])`` sends its search statements to the
replicas in turn and everything else to the primary. After a write the store
notes the primary's WAL position; a search on a replica first waits (at most
``wait_s``) until that replica has replayed it, so an ingest is visible to the
next question (read-your-writes), and otherwise reads the primary. A replica that
fails (unreachable, or in error) leaves the rotation for ``RETRY_AFTER_S`` and
the question is asked on the primary instead: no question fails because a replica
went away. Every fallback is counted in :attr:`ReplicaSet.fallbacks` by reason and
noted in the audit trail of the answer it served (:mod:`abstain.stores.notes`).
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from abstain.stores.notes import note

RETRY_AFTER_S = 30.0
"""How long a failed replica stays out of the rotation."""

WAIT_S = 0.2
"""How long a search waits for a replica to replay the store's last write."""

POLL_S = 0.005


def redacted(url: str) -> str:
    """``url`` with its password masked, as logs and notes show it."""
    return re.sub(r"://([^:/@]*):[^@]*@", r"://\1:***@", url)


def lsn(text: str) -> int:
    """A WAL position (``16/B374D848``) as an integer."""
    high, low = text.split("/")
    return (int(high, 16) << 32) + int(low, 16)


class ReplicaSet:
    """Pools of the replicas, their health, and the last write each must have replayed."""

    def __init__(self, urls: Sequence[str], *, kwargs: dict[str, Any],
                 configure: Callable[[Any], None], pool_size: int,
                 wait_s: float = WAIT_S) -> None:
        self.urls = list(urls)
        self.wait_s = wait_s
        self._pools = [ConnectionPool(url, kwargs=kwargs, min_size=0, max_size=max(1, pool_size),
                                      open=True, configure=configure, timeout=2.0,
                                      name=f"abstain-replica-{i}")
                       for i, url in enumerate(self.urls)]
        self._down_until = [0.0] * len(self._pools)
        self._replayed = [0] * len(self._pools)
        self._written = 0
        self._turn = itertools.count()
        self._lock = threading.Lock()
        self.reads = Counter[str]()
        """Searches served, by ``replica`` / ``primary``."""
        self.fallbacks = Counter[str]()
        """Searches sent to the primary instead, by reason: ``lagging`` (the replica had
        not replayed the last write), ``failed`` (it failed and left the rotation),
        ``none_live`` (every replica is out of the rotation)."""

    def wrote(self, position: str) -> None:
        """The primary's WAL position after a write that later searches must see."""
        with self._lock:
            self._written = max(self._written, lsn(position))

    def read(self, run: Callable[[Any], list[tuple[Any, ...]]]
             ) -> list[tuple[Any, ...]] | None:
        """``run`` on a replica's connection, or None when the primary must answer."""
        now = time.monotonic()
        live = [i for i in range(len(self._pools)) if self._down_until[i] <= now]
        if not live:
            self.fallbacks["none_live"] += 1
            note("store: every read replica is out of the rotation after failing;"
                 " the primary answered")
            return None
        i = live[next(self._turn) % len(live)]
        try:
            with self._pools[i].connection() as conn:
                if not self._caught_up(i, conn):
                    self.fallbacks["lagging"] += 1
                    note(f"store: replica {redacted(self.urls[i])} had not replayed the last"
                         f" write within {self.wait_s:g} s; the primary answered"
                         " (read-your-writes)")
                    return None
                rows = run(conn)
        except (psycopg.Error, PoolTimeout) as exc:
            self._down_until[i] = time.monotonic() + RETRY_AFTER_S
            self.fallbacks["failed"] += 1
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            note(f"store: replica {redacted(self.urls[i])} failed ({reason}); out of the"
                 f" rotation for {RETRY_AFTER_S:g} s, the primary answered")
            return None
        self.reads["replica"] += 1
        return rows

    def _caught_up(self, i: int, conn: Any) -> bool:
        written = self._written
        deadline = time.monotonic() + self.wait_s
        while self._replayed[i] < written:
            row = conn.execute("SELECT pg_last_wal_replay_lsn()::text").fetchone()
            conn.rollback()
            if row is None or row[0] is None:  # not a standby: it holds every write
                self._replayed[i] = written
                break
            self._replayed[i] = max(self._replayed[i], lsn(row[0]))
            if self._replayed[i] >= written or time.monotonic() >= deadline:
                break
            time.sleep(POLL_S)
        return self._replayed[i] >= written

    def close(self) -> None:
        for pool in self._pools:
            pool.close()

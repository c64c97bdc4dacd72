"""Recall from a project's past (the read side of history_store.py): what earlier requests like this
one led to, and what was worked on together with the files in play.

- `Past.asked`: the earlier prompts most like this one (BM25 over the request log, each word
  weighted by how rare it is among the project's prompts, so "continue with the next task" said
  a thousand times matches nothing in particular, and a prompt made only of such words, nothing:
  CHATTER_DF) lend the files they led to, each request by its similarity and its recency (in
  sessions), shared over the files it led to. A prompt whose words the log never saw is not like
  any earlier one: such words count against the similarity.
- `Past.together`: the files read or edited in the same earlier sessions as the seeds (the files in
  play), cosine-normalized by how many sessions each file was in, newest sessions first: a file
  every session opens (a README, an agent's notes) cannot dominate.

- `Past.ignored`: the files recall injected in earlier sessions again and again that the agent
  never opened there (outcome feedback); the prompt hook leaves them out, unless the request names them.

All give project paths (history_store.py stores them relative to the project root); the search
maps them onto the index, so files that no longer exist drop out there. The session being
searched is left out (the Stop hook archives it as it goes). Weights come from the caller
(search/ranking.py, `Session.past_*`).
"""

from __future__ import annotations

import math
import sqlite3

from cairn.sessions.history_store import count_of, open_store, terms_of

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_QUERY_TERMS = 16  # of a prompt's words, the rarest in the log are looked up
MAX_POSTINGS = 4000  # requests read per word (the newest): a word in more says little anyway
CANDIDATES = 200  # requests scored in full, the best partial sums first
K1, B = 1.2, 0.75  # BM25 over prompts, binary term frequency
# A prompt must say at least what one word of this many earlier requests says: made only of words
# the log holds again and again ("continue", "yes go ahead"), it would be fully like each of
# hundreds of requests, and lend the files of the newest (a log of fewer requests: no floor).
CHATTER_DF = 100


class Asked:
    """A file earlier requests led to: its score and the request that gave the most."""

    __slots__ = ("score", "prompt", "ts", "best")

    def __init__(self) -> None:
        self.score, self.prompt, self.ts, self.best = 0.0, "", "", 0.0

    def add(self, share: float, prompt: str, ts: str | None) -> None:
        self.score += share
        if share > self.best:
            self.best, self.prompt, self.ts = share, prompt, ts or ""


class Past:
    """A project's history store, open for one request (`exclude`: the session being searched)."""

    def __init__(self, con: sqlite3.Connection, exclude: str | None = None) -> None:
        self.con, self.exclude = con, exclude or ""
        self._newest: int | None = None
        self._skip: int | None = None

    def _excluded(self) -> int:
        """The store's number of the session being searched (-1: it holds none)."""
        if self._skip is None:
            row = self.con.execute("SELECT seq FROM sessions WHERE sid = ?", (self.exclude,)).fetchone()
            self._skip = row[0] if row else -1
        return self._skip

    def close(self) -> None:
        self.con.close()

    def _recency(self, seq: int, half_life: float) -> float:
        if self._newest is None:
            self._newest = self.con.execute("SELECT MAX(seq) FROM sessions").fetchone()[0] or 0
        return 0.5 ** (max(0, self._newest - seq) / half_life) if half_life > 0 else 1.0

    def similar(
        self, prompt: str, *, min_sim: float, limit: int, half_life: float
    ) -> list[tuple[int, float, str, str | None, int]]:
        """(request id, similarity x recency, its prompt, its time, its file count) of the earlier
        requests at least `min_sim` like `prompt`, the best `limit`."""
        con = self.con
        n = count_of(con, "requests")
        words = terms_of(prompt)
        if n <= 0 or not words:
            return []
        avg = max(count_of(con, "terms") / n, 1.0)
        ids: dict[str, int] = {}
        df: dict[str, int] = {}
        for tid, term, count in con.execute(
            f"SELECT id, term, df FROM terms WHERE term IN ({','.join('?' * len(words))})", words
        ):
            ids[term], df[term] = tid, count
        idf = {w: _idf(n, df.get(w, 0)) for w in words}
        whole = sum(idf.values())  # what a request holding every word (of average length) would score
        if n > CHATTER_DF and whole < _idf(
            n, CHATTER_DF
        ):  # "continue", said a thousand times: like all of them, so like none
            return []
        acc: dict[int, float] = {}
        for w in sorted((w for w in words if w in df), key=lambda w: -idf[w])[:MAX_QUERY_TERMS]:
            for (rid,) in con.execute(
                "SELECT rid FROM request_terms WHERE tid = ? ORDER BY rid DESC LIMIT ?", (ids[w], MAX_POSTINGS)
            ):
                acc[rid] = acc.get(rid, 0.0) + idf[w]
        if not acc or whole <= 0:
            return []
        best = sorted(acc, key=lambda r: -acc[r])[:CANDIDATES]
        out = []
        skip = self._excluded()
        for rid, prompt_head, ts, nterms, nfiles, seq in con.execute(
            f"SELECT id, prompt, ts, nterms, nfiles, seq FROM requests WHERE id IN ({','.join('?' * len(best))})",
            best,
        ):
            if seq == skip or not nfiles:
                continue
            norm = (K1 + 1) / (1 + K1 * (1 - B + B * nterms / avg))
            sim = min(1.0, acc[rid] * norm / whole)
            if sim >= min_sim:
                out.append((rid, sim * self._recency(seq, half_life), prompt_head, ts, nfiles))
        out.sort(key=lambda x: (-x[1], -x[0]))
        return out[:limit]

    def asked(
        self,
        prompt: str,
        *,
        min_sim: float = 0.3,
        limit: int = 20,
        half_life: float = 200.0,
        power: float = 2.0,
        read_share: float = 0.6,
    ) -> dict[str, Asked]:
        """path -> Asked: the files the earlier requests like `prompt` led to (see the module doc)."""
        found = self.similar(prompt, min_sim=min_sim, limit=limit, half_life=half_life)
        if not found:
            return {}
        by_id = {rid: (w, head, ts, nfiles) for rid, w, head, ts, nfiles in found}
        out: dict[str, Asked] = {}
        for rid, path, edited in self.con.execute(
            f"SELECT r.rid, f.path, r.edited FROM request_files r JOIN files f ON f.id = r.fid "
            f"WHERE r.rid IN ({','.join('?' * len(by_id))}) ORDER BY r.rid, f.path",
            list(by_id),
        ):
            w, head, ts, nfiles = by_id[rid]
            share = (w**power) * (1.0 if edited else read_share) / math.sqrt(nfiles)
            out.setdefault(path, Asked()).add(share, head, ts)
        return out

    def together(self, seeds: dict[str, float], *, per_seed: int = 40, half_life: float = 200.0) -> dict[str, float]:
        """path -> how strongly it was worked on in the same earlier sessions as the seeds."""
        con = self.con
        if not seeds:
            return {}
        counts = _sessions_of(con, list(seeds))
        skip = self._excluded()
        out: dict[str, float] = {}
        for seed, w in seeds.items():
            fid, n_seed = counts.get(seed, (0, 0))
            if not n_seed:
                continue
            rows = con.execute(
                "SELECT s.seq, s.nfiles FROM session_files f JOIN sessions s ON s.seq = f.seq "
                "WHERE f.fid = ? AND f.seq != ? ORDER BY f.seq DESC LIMIT ?",
                (fid, skip, per_seed),
            ).fetchall()
            if not rows:
                continue
            weight = {seq: self._recency(seq, half_life) / math.log2(2 + nfiles) for seq, nfiles in rows}
            acc: dict[str, float] = {}
            other: dict[str, int] = {}
            for seq, path, n in con.execute(  # in v1's order (session id, path): the same sums to the last bit
                f"SELECT s.seq, p.path, p.sessions FROM session_files f JOIN sessions s ON s.seq = f.seq "
                f"JOIN files p ON p.id = f.fid WHERE f.seq IN ({','.join('?' * len(weight))}) AND f.fid != ? "
                f"ORDER BY s.sid, p.path",
                (*weight, fid),
            ):
                acc[path] = acc.get(path, 0.0) + weight[seq]
                other[path] = n
            for path, s in acc.items():
                out[path] = out.get(path, 0.0) + w * s / math.sqrt(min(n_seed, per_seed) * max(other.get(path, 1), 1))
        for seed in seeds:
            out.pop(seed, None)
        return out

    def ignored(self, paths: Sequence[str], min_sessions: int = 3) -> set[str]:
        """Of `paths`, those injected in at least `min_sessions` earlier sessions and opened in none."""
        if not paths:
            return set()
        part = list(paths)[:500]
        rows = self.con.execute(
            f"SELECT f.path, COUNT(*), SUM(b.opened) FROM files f JOIN feedback b ON b.fid = f.id "
            f"WHERE f.path IN ({','.join('?' * len(part))}) AND b.seq != ? GROUP BY f.path",
            (*part, self._excluded()),
        ).fetchall()
        return {p for p, shown, opened in rows if shown >= min_sessions and not opened}


def _idf(n: int, df: int) -> float:
    """BM25's idf of a word in `df` of `n` requests."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def _sessions_of(con: sqlite3.Connection, paths: Sequence[str]) -> dict[str, tuple[int, int]]:
    """path -> (its id, the sessions it was in) of the paths the store knows."""
    out: dict[str, tuple[int, int]] = {}
    for i in range(0, len(paths), 500):
        part = list(paths[i : i + 500])
        for fid, path, n in con.execute(
            f"SELECT id, path, sessions FROM files WHERE path IN ({','.join('?' * len(part))})", part
        ):
            out[path] = (fid, n)
    return out


def open_past(project_id: str, exclude: str | None = None) -> Past | None:
    """The project's past for recall, or None when it has none (then recall is as without history).
    A store that cannot be opened (damaged, another format) is no history, never an error."""
    try:
        con = open_store(project_id, create=False)
    except Exception:  # noqa: BLE001 - a broken history store must never cost a prompt its recall
        return None
    if con is None:
        return None
    return Past(con, exclude)

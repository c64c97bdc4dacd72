"""Token usage of Gemini CLI chats, counted as ccusage `gemini session` counts (adapter/gemini @ 5816e640).

Each `gemini` message with `tokens` is one request: `input` (with aliases), `output`, `cached`,
`thoughts`, `tool`, `total`. When `total` equals input + output + thoughts + tool (so `input`
included the cached part), fresh input = input - cached; else input is taken as fresh. Tool
tokens count as input. When `total` exceeds what the parts add up to, the difference counts as
output if there is none, else as reasoning. A message without a model is skipped in a `.json`
chat; in a `.jsonl` chat the latest model seen stands in, and a message written again under the
same id replaces the earlier line. Thinking tokens are billed as output by Google, so they are
priced as output here (`reasoning` keeps them apart for the report). A session's message seen in
two files (a copied chat) is counted once, by (session id, message id). The output of each of a
counted message's tool calls (its functionResponse `output` / `error` texts: what the model read
back) is the X-ray's tool output of the chat.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import orjson

from cairn.sessions.gemini_turns import (
    is_project_hash,
    model_results,
    project_root,
    read_document,
    root_for_hash,
)
from cairn.sessions.transcript import GEMINI
from cairn.sessions.usage import Dataset, ToolResult, Turn, parse_timestamp
from cairn.util.jsonl import parse_line

_NAMES = {
    "input": ("input", "prompt", "input_tokens", "prompt_tokens"),
    "output": ("output", "candidates", "output_tokens", "candidates_tokens"),
    "cached": ("cached", "cached_tokens"),
    "thoughts": ("thoughts", "reasoning", "thoughts_tokens", "reasoning_tokens"),
    "tool": ("tool", "tool_tokens"),
}


def _num(rec: dict, names: tuple[str, ...]) -> int:
    for n in names:
        v = rec.get(n)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return v
        if isinstance(v, float) and v >= 0:
            return int(v)
    return 0


def tokens_of(raw: object) -> tuple[int, int, int, int] | None:
    """(fresh input, output, cache read, reasoning) of a message's `tokens`, ccusage's way."""
    if not isinstance(raw, dict):
        return None
    t = {k: _num(raw, names) for k, names in _NAMES.items()}
    total_raw = raw.get("total", raw.get("total_tokens"))
    total = total_raw if isinstance(total_raw, int) and not isinstance(total_raw, bool) and total_raw >= 0 else None
    inclusive = t["input"] + t["output"] + t["thoughts"] + t["tool"]
    if t["cached"] > 0 and total == inclusive and total != inclusive + t["cached"]:
        fresh, cache = t["input"] - min(t["input"], t["cached"]), t["cached"]
    else:
        fresh, cache = t["input"], t["cached"]
    fresh += t["tool"]
    total = total if total is not None else fresh + t["output"] + cache + t["thoughts"]
    output, reasoning = t["output"], t["thoughts"]
    missing = total - (fresh + output + cache + reasoning)
    if missing > 0:
        if output == 0:
            output = missing
        else:
            reasoning += missing
    if not (fresh or output or cache or reasoning):
        return None
    return fresh, output, cache, reasoning


def _messages(path: Path) -> tuple[str | None, list[dict]]:
    if path.suffix == ".json":
        records = read_document(path)
        sid = records[0].get("sessionId") if records else None
        return (sid if isinstance(sid, str) else None), [r for r in records[1:] if r.get("type") == "gemini"]
    sid, model = None, None
    by_id: dict[str, int] = {}
    out: list[dict] = []
    with open(path, "rb") as fh:
        for raw in fh.read().split(b"\n"):
            try:
                rec = orjson.loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError):
                rec = parse_line(raw)  # a cut emoji (lone surrogate): U+FFFD, the message still counts
            if not isinstance(rec, dict):
                continue
            if isinstance(rec.get("sessionId"), str):
                sid = rec["sessionId"]
            if isinstance(rec.get("model"), str) and rec["model"]:
                model = rec["model"]
            if rec.get("type") != "gemini":
                continue
            rec = {**rec, "model": rec.get("model") or model}
            mid = rec.get("id")
            if isinstance(mid, str) and mid in by_id:
                out[by_id[mid]] = rec
                continue
            if isinstance(mid, str):
                by_id[mid] = len(out)
            out.append(rec)
    return sid, out


def scan_gemini_file(
    path: Path, ds: Dataset, out: list[Turn], seen: set[tuple], keys: list[tuple] | None = None
) -> None:
    """Read one chat's usage into `out` (messages already `seen` in another file dropped)."""
    try:
        sid, messages = _messages(path)
    except (ValueError, UnicodeError, RecursionError):
        ds.bad_lines += 1
        return
    sid = sid or path.stem
    cwd = project_root(path)
    if cwd:
        ds.session_cwd.setdefault(sid, cwd)
    ds.session_dir.setdefault(sid, path.parent.parent.name)
    for m in messages:
        model = m.get("model")
        if not isinstance(model, str) or not model.strip():
            continue
        got = tokens_of(m.get("tokens"))
        ts = parse_timestamp(m.get("timestamp"))
        if got is None or ts is None:
            continue
        key = (sid, m.get("id") if isinstance(m.get("id"), str) else (m.get("timestamp"), got))
        if key in seen:
            continue
        seen.add(key)
        if keys is not None:  # for a merge across processes (scan_pool.py)
            keys.append(key)
        fresh, output, cache, reasoning = got
        out.append(
            Turn(
                session_id=sid,
                file=str(path),
                is_subagent=False,
                ts=ts,
                timestamp=m["timestamp"],
                model=model,
                message_id=None,
                request_id=None,
                sidechain=False,
                speed=None,
                input=fresh,
                output=output + reasoning,
                cache_write=0,
                write_5m=0,
                write_1h=0,
                cache_read=cache,
                cwd=cwd,
                agent=GEMINI,
                reasoning=reasoning,
            )
        )
        calls = m.get("toolCalls")
        for call in calls if isinstance(calls, list) else ():  # the message's tool outputs, counted with it
            if isinstance(call, dict):
                chars = sum(len(text) for text in model_results(call))
                when = parse_timestamp(call.get("timestamp")) or ts
                ds.tool_results.append(ToolResult(sid, when, str(call.get("name") or "?"), chars))


def known_roots() -> list[str]:
    """Working folders a chat named by its project's hash may have run in: this process's folder
    and every folder the session archive knows (when there is one)."""
    try:
        roots = [os.getcwd()]
    except OSError:  # the folder was deleted under us
        roots = []
    from cairn.sessions.archive_schema import archive_path, known_cwds

    if archive_path().exists():
        import sqlite3

        try:
            con = sqlite3.connect(f"file:{archive_path()}?mode=ro", uri=True)
            try:
                roots += known_cwds(con)
            finally:
                con.close()
        except sqlite3.Error:
            pass  # an archive that cannot be read names no folder
    return roots


def name_hashed_folders(ds: Dataset, roots: Callable[[], Iterable[str]] = known_roots) -> None:
    """Give a Gemini chat whose folder is named by its project's hash (older Gemini CLI writes no
    `.project_root`) the working folder whose SHA-256 that is, among the other sessions' folders and
    `roots()`: the X-ray then puts it under its project, not "unknown"."""
    chats = {t.session_id for t in ds.turns if t.agent == GEMINI}
    hashed = {
        sid: ds.session_dir[sid]
        for sid in chats
        if sid not in ds.session_cwd and is_project_hash(ds.session_dir.get(sid, ""))
    }
    if not hashed:
        return
    candidates = list(dict.fromkeys([*ds.session_cwd.values(), *roots()]))
    for sid, digest in hashed.items():
        found = root_for_hash(digest, candidates)
        if found:
            ds.session_cwd[sid] = found

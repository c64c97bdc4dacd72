"""Every compiled `re` pattern cairn keeps at module level, and a probe of its time on hostile text.

A backtracking regex that sees user text (a prompt, a pasted log, a file) can take quadratic or
exponential time in the text's length: `MAX_RETRY_COUNT_FOR_UPSTREAM_HTTP_REQUESTS-v2` once made
`cairn search` run for minutes. The probe runs each pattern on strings built from repeated units
with a tail that makes a match fail at the last character (where backtracking is worst), at two
lengths, and reports the growth of the time: ~4x for 4x the text is linear, ~16x quadratic, and an
exponential pattern does not finish (a SIGALRM bound stops it).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import signal
import time
from collections.abc import Iterator

import cairn

UNITS = [
    "A_",
    "aB",
    "Ab",
    "a_",
    "A",
    "a",
    "_",
    "aB1",
    "a.",
    "a/",
    "a-",
    "a.b/",
    "a::",
    "-",
    ".",
    "/",
    " ",
    " \t",
    "a ",
    "#",
    "`",
    "~",
    "'",
    '"',
    "(",
    "[",
    "{",
    "<",
    "<!--",
    "{{",
    "\\",
    "=",
    "a=",
    "a:",
    "0",
    "1.",
    "é",
    "\n",
    "a\n",
    "\n ",
    "*",
    "@",
    "$a",
    "a,",
    ";",
    "|",
    "<a>",
    "%2",
    "a&b=",
]
TAILS = ["", "-v2", "!", "\x00", "\n", "é", "("]


def module_patterns() -> list[tuple[str, re.Pattern]]:
    """(module.NAME, pattern) for every `re.Pattern` at module level in cairn, in containers too,
    named after the module that assigns it (`NAME = re.compile(...)`), not one that imports it."""
    names: dict[int, list[str]] = {}
    found: dict[int, re.Pattern] = {}
    sources: dict[str, str] = {}
    for info in pkgutil.walk_packages(cairn.__path__, "cairn."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        try:
            sources[info.name] = open(module.__file__ or "", encoding="utf-8").read()
        except OSError:
            sources[info.name] = ""
        for name, value in vars(module).items():
            stack = [value]
            while stack:
                v = stack.pop()
                if isinstance(v, re.Pattern):
                    found[id(v)] = v
                    names.setdefault(id(v), []).append(f"{info.name}.{name}")
                elif isinstance(v, (list, tuple, set, frozenset)) and len(v) < 1000:
                    stack.extend(v)
                elif isinstance(v, dict) and len(v) < 1000:
                    stack.extend(v.keys())
                    stack.extend(v.values())

    def assigned_here(qualified: str) -> bool:
        module, _, name = qualified.rpartition(".")
        return re.search(rf"^{re.escape(name)}\s*(?::[^=]*)?=", sources.get(module, ""), re.M) is not None

    out = []
    for key, pattern in found.items():
        aliases = sorted(set(names[key]))
        home = [a for a in aliases if assigned_here(a)]
        compiled = [
            a
            for a in home
            if re.search(
                rf"^{re.escape(a.rpartition('.')[2])}\b.*re\.compile\(", sources.get(a.rpartition(".")[0], ""), re.M
            )
        ]
        home = compiled or home
        out.append(((home or aliases)[0], pattern))
    return sorted(out, key=lambda item: item[0])


def hostile(n: int, binary: bool) -> Iterator[str | bytes]:
    for unit in UNITS:
        for tail in TAILS:
            text = unit * (n // len(unit)) + tail
            yield text.encode("utf-8") if binary else text


class _Slow(Exception):
    pass


def _alarm(*_args: object) -> None:
    raise _Slow


ANY_START = ("search", "finditer")
ONE_START = ("match", "fullmatch")


def cost(pattern: re.Pattern, text: str | bytes, limit: float, ops: tuple[str, ...] = ANY_START + ONE_START) -> float:
    """Seconds for the `ops` on `text` (finditer: all its matches); past `limit`, stop: inf."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        for op in ops:
            found = getattr(pattern, op)(text)
            if op == "finditer":
                for _ in found:
                    pass
        return time.perf_counter() - start
    except _Slow:
        return float("inf")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def worst_growth(
    pattern: re.Pattern, n: int, limit: float, ops: tuple[str, ...] = ANY_START + ONE_START, confirm: float = 9.0
) -> tuple[float, float, str]:
    """(growth, t(4n), the input) for the input where the time grows most from n to 4n (best of 2
    runs); a growth over `confirm` counts only if 4n to 16n grows as much (a loaded machine's
    noise makes one step look quadratic, never two)."""
    binary = isinstance(pattern.pattern, bytes)
    worst = (0.0, 0.0, "")
    sizes = zip(hostile(n, binary), hostile(4 * n, binary), hostile(16 * n, binary), strict=True)
    for small, large, larger in sizes:
        t_large = cost(pattern, large, limit, ops)
        if t_large < 0.005:  # under 5 ms at 4n: nothing to measure, nothing to fear
            continue
        t_large = min(t_large, cost(pattern, large, limit, ops))
        if t_large < 0.005:
            continue
        t_small = max(min(cost(pattern, small, limit, ops) for _ in range(2)), 1e-5)
        growth = t_large / t_small
        if growth > confirm and t_large != float("inf"):
            growth = min(growth, min(cost(pattern, larger, limit, ops) for _ in range(2)) / t_large)
        if growth > worst[0]:
            worst = (growth, t_large, repr(large[:12]) + f"... ({len(large)} chars)")
    return worst

"""A CPU timer wrapped around a module's function, for the benchmarks that split a run by part."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType


def time_calls(
    module: ModuleType, name: str, spent: dict[str, float], clock: Callable[[], float] = time.process_time
) -> None:
    """Replace `module.name` with a wrapper adding each call's `clock` time to `spent[name]`
    (callers that look the name up at call time, as cairn's lazy imports do, get the wrapper)."""
    real = getattr(module, name)

    def timed(*args, **kwargs):
        start = clock()
        try:
            return real(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + clock() - start

    setattr(module, name, timed)

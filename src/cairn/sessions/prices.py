"""Model prices: the table shipped with cairn (prices.json), overridable in ~/.cairn/config.toml.

Prices change and new models appear, so the table carries the date it was taken and its source,
and a model it does not know is reported as unpriced rather than guessed. Override or add a model:

    [prices."claude-opus-4-6-fast"]
    input = 30.0          # USD per million tokens
    output = 150.0        # cache rates default to 1.25x / 2x / 0.1x input when omitted

Cache rates follow Anthropic's multipliers of the input price: 5-minute write 1.25x, 1-hour write
2x, read 0.1x. A request whose whole input passes 200k tokens is charged entirely at the
`*_above_200k` rates where the model has them (Anthropic's rule; ccusage tiers per field instead).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cairn.errors import CairnError

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

RATES = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")
DERIVED = {"cache_write_5m": 1.25, "cache_write_1h": 2.0, "cache_read": 0.1}  # x input
LONG_CONTEXT_TOKENS = 200_000
PER_TOKEN = 1e-6  # table unit: USD per million tokens


class CostParts:
    """USD for one request (or a sum of them), split by what the tokens were.

    A plain slotted class, not a frozen dataclass: the X-ray makes one per request, and a frozen
    dataclass's __init__ costs four object.__setattr__ calls (docs/benchmarks.md#xray).
    """

    __slots__ = ("input", "output", "cache_write", "cache_read")

    def __init__(
        self,
        input: float = 0.0,
        output: float = 0.0,
        cache_write: float = 0.0,  # noqa: A002
        cache_read: float = 0.0,
    ) -> None:
        self.input = input
        self.output = output
        self.cache_write = cache_write
        self.cache_read = cache_read

    def __repr__(self) -> str:
        return (
            f"CostParts(input={self.input!r}, output={self.output!r}, cache_write={self.cache_write!r}, "
            f"cache_read={self.cache_read!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CostParts):
            return NotImplemented
        return (self.input, self.output, self.cache_write, self.cache_read) == (
            other.input,
            other.output,
            other.cache_write,
            other.cache_read,
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def total(self) -> float:
        return self.input + self.output + self.cache_write + self.cache_read


@dataclass(frozen=True)
class ModelPrice:
    name: str
    base: dict[str, float]
    above_200k: dict[str, float] | None = None

    def parts(
        self, input_tokens: int, output_tokens: int, write_5m: int, write_1h: int, cache_read: int
    ) -> tuple[float, float, float, float]:
        """(input, output, cache write, cache read) USD of one request; the long-context tier
        applies when its whole input passes 200k."""
        prompt = input_tokens + write_5m + write_1h + cache_read
        r = self.above_200k if (self.above_200k and prompt > LONG_CONTEXT_TOKENS) else self.base
        return (
            input_tokens * r["input"] * PER_TOKEN,
            output_tokens * r["output"] * PER_TOKEN,
            (write_5m * r["cache_write_5m"] + write_1h * r["cache_write_1h"]) * PER_TOKEN,
            cache_read * r["cache_read"] * PER_TOKEN,
        )

    def parts_columns(
        self,
        inputs: Sequence[int],
        outputs: Sequence[int],
        writes_5m: Sequence[int],
        writes_1h: Sequence[int],
        reads: Sequence[int],
    ) -> tuple[list[float], ...]:
        """`parts` of many requests at once, as four lists: the same floats, computed in list
        comprehensions (one rate set) instead of a call per request."""
        if self.above_200k:  # the tier depends on each request's prompt
            return (
                tuple(map(list, zip(*map(self.parts, inputs, outputs, writes_5m, writes_1h, reads), strict=True)))
                if inputs
                else ([], [], [], [])
            )
        r = self.base
        ri, ro, r5, r1, rc = r["input"], r["output"], r["cache_write_5m"], r["cache_write_1h"], r["cache_read"]
        writes = (
            [(a * r5 + b * r1) * PER_TOKEN for a, b in zip(writes_5m, writes_1h, strict=True)]
            if any(writes_5m) or any(writes_1h)
            else [(0 * r5 + 0 * r1) * PER_TOKEN] * len(writes_5m)
        )
        return _times(inputs, ri), _times(outputs, ro), writes, _times(reads, rc)

    def flat_rates(self) -> tuple[float, float, float, float, float] | None:
        """(input, output, 5-minute write, 1-hour write, cache read) rates when every request pays
        the same ones (no long-context tier), else None: what `parts` multiplies by, for a loop
        that prices many requests inline (simulate.replay)."""
        if self.above_200k:
            return None
        r = self.base
        return r["input"], r["output"], r["cache_write_5m"], r["cache_write_1h"], r["cache_read"]

    def cost(self, input_tokens: int, output_tokens: int, write_5m: int, write_1h: int, cache_read: int) -> CostParts:
        """Price one request (see `parts`)."""
        return CostParts(*self.parts(input_tokens, output_tokens, write_5m, write_1h, cache_read))

    def cost_total(self, input_tokens: int, output_tokens: int, write_5m: int, write_1h: int, cache_read: int) -> float:
        """`cost(...).total` without building the parts object: the same float, added in the same order."""
        a, b, c, d = self.parts(input_tokens, output_tokens, write_5m, write_1h, cache_read)
        return a + b + c + d


def _times(tokens: Sequence[int], rate: float) -> list[float]:
    """`[n * rate * PER_TOKEN for n in tokens]`; a column of zeros (no cache writes in Codex or
    Gemini turns) is the one float every item would give, repeated."""
    if not any(tokens):
        return [0 * rate * PER_TOKEN] * len(tokens)
    return [n * rate * PER_TOKEN for n in tokens]


_DATE_SUFFIX = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8}|-v\d+(:\d+)?)$")
_PROVIDER_PREFIX = re.compile(r"^((us|eu|apac|global)\.)?anthropic\.")


def normalize_model(model: str) -> str:
    """`claude-sonnet-4-5-20250929`, `us.anthropic.claude-...-v1:0`, `claude-...@2025...` -> table key."""
    m = _PROVIDER_PREFIX.sub("", model.strip().lower())
    prev = None
    while prev != m:
        prev, m = m, _DATE_SUFFIX.sub("", m)
    return m


@dataclass
class PriceTable:
    as_of: str
    source: str
    models: dict[str, ModelPrice]
    aliases: dict[str, str] = field(default_factory=dict)
    overridden: list[str] = field(default_factory=list)
    _found: dict[str, ModelPrice | None] = field(default_factory=dict, repr=False, compare=False)

    def lookup(self, model: str | None) -> ModelPrice | None:
        """The price of a model as written in a transcript, or None when the table lacks it."""
        if not model:
            return None
        try:
            return self._found[model]
        except KeyError:
            pass
        found = None
        for key in (model, model.lower(), normalize_model(model)):
            key = self.aliases.get(key, key)
            if key in self.models:
                found = self.models[key]
                break
        self._found[model] = found  # a few models, looked up once per turn: remember the answer
        return found

    def describe(self) -> dict[str, Any]:
        return {"as_of": self.as_of, "source": self.source, "overridden": list(self.overridden)}


def _rates(name: str, raw: dict, base: dict[str, float] | None, where: str) -> dict[str, float]:
    out: dict[str, float] = dict(base or {})
    for key in RATES:
        if key in raw:
            val = raw[key]
            if isinstance(val, bool) or not isinstance(val, int | float) or val < 0:
                raise CairnError(f'{where}: prices."{name}".{key} must be a non-negative number')
            out[key] = float(val)
    if "input" not in out or "output" not in out:
        raise CairnError(f'{where}: prices."{name}" needs at least input and output (USD per million tokens)')
    for key, mult in DERIVED.items():
        if key not in raw and (base is None or key not in base):
            out[key] = out["input"] * mult
    return out


def _model_price(name: str, raw: dict, prior: ModelPrice | None, where: str) -> ModelPrice:
    if not isinstance(raw, dict):
        raise CairnError(f'{where}: prices."{name}" must be a table of rates')
    base = _rates(name, raw, prior.base if prior else None, where)
    above_raw = {k.removesuffix("_above_200k"): v for k, v in raw.items() if k.endswith("_above_200k")}
    above = prior.above_200k if prior else None
    if above_raw:
        above = _rates(name + " above 200k", above_raw, above or base, where)
    return ModelPrice(name=name, base=base, above_200k=above)


def load_prices(overrides: dict | None = None) -> PriceTable:
    """The shipped table merged with `overrides` (default: the `[prices]` table of the user config)."""
    # beside this module; not importlib.resources, whose zip support costs ~7 ms of imports per run
    data = json.loads(Path(__file__).with_name("prices.json").read_text(encoding="utf-8"))
    models = {name: _model_price(name, raw, None, "prices.json") for name, raw in data["models"].items()}
    table = PriceTable(as_of=data["as_of"], source=data["source"], models=models, aliases=dict(data.get("aliases", {})))
    if overrides is None:
        from cairn.config import user_config

        overrides = user_config().get("prices") or {}
    if not isinstance(overrides, dict):
        raise CairnError("config.toml: [prices] must be a table of models")
    for name, raw in overrides.items():
        key = table.aliases.get(normalize_model(name), normalize_model(name))
        prior = table.models.get(key)
        table.models[key] = _model_price(key, raw, prior, "config.toml")
        table.overridden.append(key)
    return table

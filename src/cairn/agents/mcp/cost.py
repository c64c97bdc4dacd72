"""What cairn costs a client before any call: the tool list, the instructions, the resource templates.

Why it matters: a client loads the tools (names, descriptions, input schemas) and the server's
instructions into every session's context, used or not. pydantic's schemas carry a `title` per
property, `anyOf [T, null]` with `default: null` for every optional argument and length limits no
model comes near: words no model needs, repeated on every tool. `compact_schema` drops them from
what is listed; the arguments are still validated by the full pydantic model (a null still means
"the default", a 3000-character query is still refused with a clear error), so a call is checked
exactly as before and the listed schema is never looser than the check.
`session_payload` is what one session loads, as JSON; `session_cost` its estimated tokens
(text/budget.py), which bench/mcp_tool_cost.py reports and a test holds under a budget.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

_NULL = {"type": "null"}
LISTED_WITHOUT = frozenset({"title", "maxLength", "minLength", "maxItems", "minItems"})  # still validated


def compact_schema(schema: Any) -> Any:
    """`schema` without titles and length limits, and with `T | None` listed as plain `T`."""
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in LISTED_WITHOUT and isinstance(value, str | int):
            continue  # keywords of this schema (a property named `title` lives inside `properties`)
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and _NULL in options:
        (kept,) = [o for o in options if o != _NULL]
        del out["anyOf"]
        if "default" in out and out["default"] is None:
            del out["default"]
        out = {**kept, **out}
    return out


def session_payload(server: MCPServer) -> dict[str, Any]:
    """What a client loads from `server` every session: instructions, tools/list, resource templates."""
    import anyio
    from mcp import Client

    async def fetch() -> dict[str, Any]:
        async with Client(server) as client:
            tools = (await client.list_tools()).tools
            templates = (await client.list_resource_templates()).resource_templates
            return {
                "instructions": client.instructions or "",
                "tools": [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools],
                "resource_templates": [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in templates],
            }

    return anyio.run(fetch)


def as_text(value: Any) -> str:
    """The JSON text a client receives (compact separators: what goes over the wire)."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def session_cost(payload: dict[str, Any]) -> dict[str, int]:
    """Estimated tokens of each part of `payload` and their total."""
    from cairn.text.budget import estimate_tokens

    parts = {name: estimate_tokens(as_text(value)) for name, value in payload.items()}
    parts["total"] = sum(parts.values())
    return parts

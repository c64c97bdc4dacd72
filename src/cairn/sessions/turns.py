"""Turn a Claude Code transcript record into the few searchable turns worth archiving.

Transcripts are mostly noise for recall: progress lines, hook chatter, thinking, system
reminders, cairn's own injected context. What matters is what the user asked, what the agent
said, which tools it ran on what, the head of each result and every error. Compaction summaries
are kept, but as role "summary", never as the user's words. All text is redacted here, before
anything can be stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cairn.redact import redact
from cairn.sessions.markers import strip_injected

RESULT_HEAD = 300  # characters kept of a tool result
ARG_MAX = 500  # characters kept of a tool's main argument
TEXT_MAX = 32_000  # characters kept of one user/assistant/summary text

# The argument that says what a tool call was about.
MAIN_ARG = {
    "Bash": "command",
    "Read": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "Write": "file_path",
    "NotebookEdit": "notebook_path",
    "NotebookRead": "notebook_path",
    "Grep": "pattern",
    "Glob": "pattern",
    "Task": "description",
    "Agent": "description",
    "WebFetch": "url",
    "WebSearch": "query",
    "TaskOutput": "task_id",
    "KillShell": "shell_id",
    "BashOutput": "bash_id",
    "Skill": "skill",
    "SlashCommand": "command",
    "ExitPlanMode": "plan",
    "LS": "path",
}
# Results worth more than a head: the user's answers to the agent's questions are decisions.
LONG_RESULTS = {"AskUserQuestion": 2000}
FILE_TOOLS = frozenset({"Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "NotebookRead"})

_SPANS = re.compile(
    r"<(system-reminder|user-prompt-submit-hook|local-command-caveat|local-command-stdout"
    r"|local-command-stderr)>.*?(?:</\1>|\Z)",
    re.S,
)
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>.*?(?:<command-args>(.*?)</command-args>|\Z)", re.S)
_TASK_NOTE = re.compile(r"<task-notification>.*?(?:<summary>(.*?)</summary>|\Z)", re.S)
_INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
_LINE_NUMBERS = re.compile(r"(?m)^ *\d+\u2192")
_BLANK = re.compile(r"\s")


@dataclass(slots=True)
class Turn:
    uuid: str
    block: int
    role: str  # user | assistant | tool | tool_result | error | summary
    ts: str | None
    text: str
    tool: str | None = None
    arg: str | None = None
    ref: str | None = None  # tool_use id: links a call and its result
    agent: str | None = None  # subagent id


def cut_between_words(text: str, n: int) -> str:
    """At least the first `n` characters, cut at the next blank: never inside a token."""
    if len(text) <= n:
        return text
    stop = _BLANK.search(text, n, n + 4096)
    return text[: stop.start() if stop else n + 4096]


def redacted_head(text: str, n: int) -> str:
    """The first `n` characters of `text` after redaction. Redacting before the final cut matters:
    a secret cut in half first would no longer be recognised, and its first half would be kept."""
    return redact(cut_between_words(text, n))[:n].strip()


# Tools whose argument is a shell command: their output is redacted with the command before it,
# so a value the command printed (`echo $TOKEN`, `gh auth token`) is read as the secret it is.
SHELL_TOOLS = frozenset({"Bash", "shell", "exec_command", "local_shell", "run_shell_command"})


def redacted_output(text: str, n: int, command: str | None) -> str:
    """`redacted_head(text, n)` for a tool's output, judged with the command that printed it.

    The command's first line goes before the output as a shell prompt (`$ echo $TOKEN`) for the
    redactor only: alone, a token on a line of its own reads as any word; after the command that
    prints one, it is the secret."""
    line = (command or "").split("\n", 1)[0].strip()[:500]
    if not line:
        return redacted_head(text, n)
    prompt = f"$ {line}\n"
    done = redact(prompt + cut_between_words(text, n))
    head, sep, body = done.partition("\n")
    if not sep or not head.startswith("$ "):  # the prompt line did not come back whole: judge alone
        return redacted_head(text, n)
    return body[:n].strip()


class ToolCalls:
    """The tool calls a transcript made, by call id: a result is archived under its call's name
    (`calls(ref)`) and, for a shell call, redacted with its command (`calls.command(ref)`). Calls
    read in an earlier ingest come from `fetch` (the archive's rows)."""

    def __init__(self, fetch: Callable[[str], tuple[str | None, str | None]] | None = None) -> None:
        self.seen: dict[str, tuple[str, str]] = {}
        self._fetch = fetch

    def add(self, ref: str, tool: str | None, arg: str | None) -> None:
        self.seen[ref] = (tool or "", arg or "")

    def _get(self, ref: str) -> tuple[str | None, str | None]:
        if ref in self.seen:
            return self.seen[ref]
        return self._fetch(ref) if self._fetch is not None else (None, None)

    def __call__(self, ref: str) -> str | None:
        return self._get(ref)[0]

    def command(self, ref: str) -> str | None:
        tool, arg = self._get(ref)
        return arg if tool in SHELL_TOOLS else None


def command_of(tool_name: Callable[[str], str | None], ref: str | None) -> str | None:
    """The shell command of call `ref` when `tool_name` knows it (a ToolCalls), else None."""
    return tool_name.command(ref) if ref and isinstance(tool_name, ToolCalls) else None


def clean_text(text: str) -> str:
    """Text without hook chatter, system reminders or anything cairn injected."""
    text = strip_injected(text)
    if "<" in text:
        text = _SPANS.sub("", text)
    return text.strip()


def _user_text(text: str) -> tuple[str, str] | None:
    """(role, text) for a user-typed string, or None when it is chatter, not the user's words."""
    text = clean_text(text)
    if not text or _INTERRUPTED.match(text):
        return None
    if text.startswith("<command-name>") or text.startswith("<command-message>"):
        m = _COMMAND.search(text)
        if not m:
            return None
        return "user", f"{m.group(1)} {(m.group(2) or '').strip()}".strip()
    if text.startswith("<task-notification>"):
        m = _TASK_NOTE.search(text)
        return ("tool_result", (m.group(1) or "").strip()) if m and m.group(1) else None
    return "user", text


def main_argument(name: str, params: object) -> str:
    """The one argument that says what a tool call did (a command, a path, a pattern...)."""
    if not isinstance(params, dict):
        return ""
    key = MAIN_ARG.get(name)
    value = params.get(key) if key else None
    if name == "AskUserQuestion":
        qs = params.get("questions")
        if isinstance(qs, list) and qs and isinstance(qs[0], dict):
            value = qs[0].get("question")
    elif name == "TodoWrite":
        todos = params.get("todos")
        if isinstance(todos, list):
            value = "; ".join(str(t.get("content", "")) for t in todos if isinstance(t, dict))
    if value is None:  # unknown tool (MCP...): its first non-empty string argument
        value = next((v for v in params.values() if isinstance(v, str) and v.strip()), "")
    value = str(value).strip()
    if name in ("Grep", "Glob") and isinstance(params.get("path"), str):
        value = f"{value}  in {params['path']}"
    return value


def _result_text(content: object, head: int) -> str:
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    else:
        return ""
    return _LINE_NUMBERS.sub("", clean_text(cut_between_words(text, head * 4)))


def _str(value: object) -> str | None:
    """Only strings reach the database: a malformed record must not break an ingest."""
    return value if isinstance(value, str) and value else None


def extract(record: dict, offset: int, tool_name: Callable[[str], str | None]) -> list[Turn]:
    """The archivable turns of one transcript record (possibly none).

    `offset` keys records that have no uuid; `tool_name(tool_use_id)` names the tool a result
    belongs to (its call may have been read in an earlier ingest).
    """
    kind = record.get("type")
    uuid = str(record.get("uuid") or f"@{offset}")
    ts = _str(record.get("timestamp"))
    agent = _str(record.get("agentId")) if record.get("isSidechain") else None
    if kind == "summary" and isinstance(record.get("summary"), str):  # older Claude Code versions
        text = clean_text(record["summary"])
        return [Turn(uuid, 0, "summary", ts, redacted_head(text, TEXT_MAX))] if text else []
    if kind == "system":
        # only API failures; hook summaries, hook errors and local commands are chatter
        if record.get("subtype") == "api_error" or str(record.get("content") or "").startswith("API Error"):
            text = clean_text(str(record.get("content") or record.get("error") or ""))
            return [Turn(uuid, 0, "error", ts, redacted_head(text, TEXT_MAX), agent=agent)] if text else []
        return []
    if kind not in ("user", "assistant") or record.get("isMeta"):
        return []
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return []
    api_error = kind == "assistant" and (record.get("isApiErrorMessage") or record.get("error"))
    turns: list[Turn] = []
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            if record.get("isCompactSummary"):
                role, text = "summary", clean_text(block["text"])
            elif kind == "user":
                got = _user_text(block["text"])
                if got is None:
                    continue
                role, text = got
            else:
                role, text = ("error" if api_error else "assistant"), clean_text(block["text"])
            if text:
                turns.append(Turn(uuid, i, role, ts, redacted_head(text, TEXT_MAX), agent=agent))
        elif btype == "tool_use" and kind == "assistant":
            name = str(block.get("name") or "?")
            params = block.get("input")
            params = params if isinstance(params, dict) else {}
            arg = redacted_head(main_argument(name, params), ARG_MAX)
            extra = params.get("description") if name == "Bash" else None
            text = f"{name} {arg}" + (f" ({redacted_head(extra, 200)})" if isinstance(extra, str) else "")
            turns.append(Turn(uuid, i, "tool", ts, text, tool=name, arg=arg, ref=_str(block.get("id")), agent=agent))
        elif btype == "tool_result":
            ref = _str(block.get("tool_use_id"))
            tool = tool_name(ref) if ref else None
            head = LONG_RESULTS.get(tool or "", RESULT_HEAD)
            text = redacted_output(_result_text(block.get("content"), head), head, command_of(tool_name, ref))
            is_error = bool(block.get("is_error"))
            if not text and not is_error:
                continue
            turns.append(
                Turn(uuid, i, "error" if is_error else "tool_result", ts, text, tool=tool, ref=ref, agent=agent)
            )
        # thinking, redacted_thinking, image, document: not archived
    return turns


def record_meta(record: dict) -> tuple[str | None, str | None, str | None]:
    """(cwd, git branch, sessionId) a record carries, if any."""
    return _str(record.get("cwd")), _str(record.get("gitBranch")), _str(record.get("sessionId"))

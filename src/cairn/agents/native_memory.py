"""The agents' own memories, read into cairn's graph; cairn's decisions written where Codex reads notes.

Claude Code keeps an auto memory per repository, `<config>/projects/<sanitized root>/memory/`
(`MEMORY.md`, an index always loaded, and topic files). Codex keeps one memory folder per user,
`$CODEX_HOME/memories/` (`MEMORY.md` of task groups, each saying the cwd it applies to), and takes
outside notes only as `extensions/ad_hoc/notes/<YYYY-MM-DDTHH-MM-SS>-<slug>.md`, which its
consolidation folds in (it never lets anything else edit its files).

Import copies each memory of *this* project (Claude's folder for this root; Codex's task groups
whose cwd lies inside it), redacted, as a read-only node of origin "agent" into the project's folder
under CAIRN_HOME (never the repository: these are one person's notes), naming its source; a memory
whose text a project note or record already holds is left out. Export writes one Codex note with
the project's live decisions and gotchas (Claude Code reads them from the CLAUDE.md block that
`cairn memory-md` keeps). Both run only when asked (`cairn memory agents`), and `--undo` removes
what they wrote. A memory file of the wrong shape is skipped and named, never a crash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.knowledge.graph import normalize_title, ranked
from cairn.codemap.knowledge.load import load_knowledge
from cairn.codemap.knowledge.node import Node, render, slugify
from cairn.home import agent_memory_dir
from cairn.redact import redact
from cairn.util.atomic import atomic_write_text

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.project import Project

AGENTS = ("claude", "codex")
KEPT_BY = {"claude": "Claude Code's auto memory", "codex": "Codex's memories"}
MAX_FILES = 200  # memory files read from one agent
MAX_CHARS = 20_000  # of one memory kept
EXPORT_NODES = 20  # live decisions and gotchas written into the Codex note
_APPLIES = re.compile(r"applies_to:[^\n]*?\bcwd=([^\s,;)`]+)")


@dataclass
class Report:
    imported: dict[str, int] = field(default_factory=dict)  # agent -> nodes written
    duplicates: int = 0  # memories a project note already holds
    skipped: list[str] = field(default_factory=list)  # "path: why"
    sources: list[str] = field(default_factory=list)  # the folders and files read
    exported: str | None = None  # the Codex note written (or "unchanged")
    removed: int = 0

    def as_json(self) -> dict:
        return dict(self.__dict__)


def _encode(root: Path) -> str:
    """Claude Code's folder name for a path: every character not a letter or digit becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def claude_memory_dirs(root: Path) -> list[Path]:
    """Claude Code's auto-memory folders of this root (CLAUDE_CONFIG_DIR, else ~/.claude)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    bases = [Path(p).expanduser() for p in env.split(",") if p.strip()] if env else [Path.home() / ".claude"]
    names = {_encode(root), _encode(Path(os.path.realpath(root)))}
    return [
        b / "projects" / n / "memory" for b in bases for n in sorted(names) if (b / "projects" / n / "memory").is_dir()
    ]


def codex_memories() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser() / "memories"


@dataclass
class Memory:
    agent: str
    source: str  # the file (and, for a Codex task group, its heading)
    title: str
    text: str


def _read(path: Path, report: Report) -> str | None:
    try:
        with path.open("rb") as fh:
            data = fh.read(4 * MAX_CHARS)
    except OSError as exc:
        report.skipped.append(f"{path}: unreadable ({exc.strerror})")
        return None
    if b"\0" in data[:8192]:
        report.skipped.append(f"{path}: not text")
        return None
    return data.decode("utf-8", "replace")


def _title(text: str, fallback: str) -> str:
    m = re.search(r"^#{1,3}\s+(.+)$", text, re.M)
    return (m.group(1).strip() if m else fallback)[:120]


def claude_memories(root: Path, report: Report) -> list[Memory]:
    out: list[Memory] = []
    for folder in claude_memory_dirs(root):
        report.sources.append(str(folder))
        files = sorted(p for p in folder.rglob("*.md") if p.is_file() and not p.is_symlink())[:MAX_FILES]
        for f in files:
            text = _read(f, report)
            if text and text.strip():
                out.append(Memory("claude", str(f), _title(text, f.stem), text))
    return out


def codex_task_groups(root: Path, report: Report) -> list[Memory]:
    """Codex's task groups (`# ...` blocks of MEMORY.md) that apply to a cwd inside this root."""
    path = codex_memories() / "MEMORY.md"
    if not path.is_file():
        return []
    report.sources.append(str(path))
    text = _read(path, report)
    if not text:
        return []
    real = Path(os.path.realpath(root))
    out: list[Memory] = []
    for block in re.split(r"(?m)^(?=# )", text):
        cwds = _APPLIES.findall(block)
        if not block.startswith("# ") or not cwds:
            continue  # no cwd: not known to be this project's (never another project's memory)
        if any(Path(os.path.realpath(c)).is_relative_to(real) for c in cwds):
            out.append(Memory("codex", f"{path}#{_title(block, 'task group')}", _title(block, "task group"), block))
    return out[:MAX_FILES]


def _held_already(nodes: list[Node]) -> tuple[set[str], list[str]]:
    titles = {normalize_title(n.title) for n in nodes}
    bodies = [" ".join(n.body.split()).lower() for n in nodes if n.body]
    return titles, bodies


def import_memories(project: Project, agents: list[str]) -> Report:
    """Write the agents' memories of this project as read-only nodes (the folder is rewritten whole:
    a memory gone from its agent leaves it too)."""
    report = Report()
    root = _root(project)
    found: list[Memory] = []
    if "claude" in agents:
        found += claude_memories(root, report)
    if "codex" in agents:
        found += codex_task_groups(root, report)
    held = [n for n in load_knowledge(project, personal=True) if n.origin != "agent"]
    titles, bodies = _held_already(held)
    folder = agent_memory_dir(project.id)
    keep: set[str] = set()
    for m in found:
        text = redact(m.text[:MAX_CHARS])
        flat = " ".join(text.split()).lower()
        if normalize_title(m.title) in titles or any(flat and flat in b for b in bodies):
            report.duplicates += 1
            continue
        digest = hashlib.sha1(m.source.encode()).hexdigest()[:6]
        node = Node(id=f"{m.agent}-memory-{slugify(m.title, 40)}-{digest}", type="note", title=redact(m.title))
        node.body = text
        node.tags = ["agent-memory", m.agent]
        node.extra = {"source": redact(m.source), "agent": m.agent, "from": KEPT_BY[m.agent]}
        name = node.id + ".md"
        if not keep:
            folder.mkdir(parents=True, exist_ok=True)
            os.chmod(folder, 0o700)
        atomic_write_text(folder / name, render(node), 0o600)
        keep.add(name)
        report.imported[m.agent] = report.imported.get(m.agent, 0) + 1
    if folder.is_dir():
        for old in folder.glob("*.md"):
            if old.name not in keep and old.name.split("-memory-", 1)[0] in agents:
                old.unlink(missing_ok=True)
                report.removed += 1
    return report


def _root(project: Project) -> Path:
    if project.root is None:
        from cairn.errors import CairnError

        raise CairnError("not inside a project: pass --root DIR (an agent's memory belongs to one project)")
    return Path(project.root)


def _export_state(project: Project) -> Path:
    return agent_memory_dir(project.id) / ".exports.json"


def export_codex(project: Project) -> Report:
    """One Codex ad-hoc note with the project's live decisions and gotchas; the same text is not
    written twice, and cairn's previous note is replaced while Codex has not consumed it."""
    report = Report()
    root = _root(project)
    nodes = [n for n in ranked(load_knowledge(project, personal=False)) if n.type in ("decision", "gotcha")]
    lines = [f"# cairn: live decisions and gotchas of {root.name}", "", f"applies_to: cwd={root}", ""]
    for n in nodes[:EXPORT_NODES]:
        first = next((ln.strip() for ln in n.body.splitlines() if ln.strip() and not ln.startswith("#")), "")
        lines.append(f"- [{n.type}] {n.title}" + (f": {first[:200]}" if first else ""))
    if len(lines) == 4:
        lines.append("- (no live decision or gotcha recorded in cairn yet)")
    text = redact("\n".join(lines) + "\n")
    state_path = _export_state(project)
    state = _load_state(state_path)
    digest = hashlib.sha1(text.encode()).hexdigest()
    notes = codex_memories() / "extensions" / "ad_hoc" / "notes"
    previous = state.get("codex", {})
    if previous.get("sha") == digest and (notes / str(previous.get("file", ""))).exists():
        report.exported = "unchanged"
        return report
    name = f"{time.strftime('%Y-%m-%dT%H-%M-%S')}-cairn-{slugify(root.name, 40)}.md"
    notes.mkdir(parents=True, exist_ok=True)
    atomic_write_text(notes / name, text, 0o600)
    if previous.get("file") and previous.get("file") != name:
        (notes / str(previous["file"])).unlink(missing_ok=True)
    state["codex"] = {"file": name, "sha": digest}
    state_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(state_path, json.dumps(state, indent=1) + "\n", 0o600)
    report.exported = str(notes / name)
    return report


def _load_state(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def undo(project: Project) -> Report:
    """Remove every imported node of this project and the Codex note cairn wrote (if still there)."""
    report = Report()
    folder = agent_memory_dir(project.id)
    note = _load_state(_export_state(project)).get("codex", {}).get("file")
    if note:
        path = codex_memories() / "extensions" / "ad_hoc" / "notes" / str(note)
        if path.is_file():
            path.unlink()
            report.removed += 1
    if folder.is_dir():
        import shutil

        report.removed += len(list(folder.glob("*.md")))
        shutil.rmtree(folder)
    return report

"""Who and what a push is about: the project by its git remote (not its local path), the user, the machine.

Two clones of one repository on two machines are one project for the team: the remote URL,
normalized (`git@github.com:Org/App.git`, `https://user@github.com/Org/App` and
`ssh://git@github.com/Org/App.git` are all `github.com/Org/App`). The archive id is a random id
kept in CAIRN_HOME, so two archives on one machine keep separate push marks.
"""

from __future__ import annotations

import re
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

from cairn.errors import CairnError

_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:owner/name


def normalize_remote(url: str) -> str:
    """A remote URL as a host/path identity: no scheme, user, port-less `:`, `.git` or trailing slash."""
    url = url.strip()
    m = re.match(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/]+)(/.*)?$", url, re.I)
    if m:
        host, path = m.group(1), m.group(2) or ""
        host = re.sub(r":\d+$", "", host) if url.lower().startswith(("ssh://", "git://")) else host
    else:
        scp = _SCP.match(url)
        if scp and "/" not in scp.group(1):
            host, path = scp.group(1), "/" + scp.group(2)
        else:  # a local path: the folder name is all that identifies it
            return "local/" + Path(url.rstrip("/")).name.removesuffix(".git")
    path = path.rstrip("/").removesuffix(".git").rstrip("/")
    return f"{host.lower()}{path}"


def git_remote(root: Path) -> str | None:
    """The URL of `origin` (else of the first remote), or None."""

    def run(*args: str) -> str:
        try:
            r = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            return ""
        return r.stdout.strip() if r.returncode == 0 else ""

    names = run("remote").split()
    if not names:
        return None
    return run("remote", "get-url", "origin" if "origin" in names else names[0]) or None


def git_user(root: Path | None) -> str:
    try:
        r = subprocess.run(
            ["git", *(["-C", str(root)] if root else []), "config", "user.email"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        return r.stdout.strip() if r.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


@dataclass(frozen=True)
class Identity:
    project: str  # normalized git remote
    project_name: str
    local_project_id: str  # the local archive's id of this project
    user: str
    machine: str
    archive: str  # this CAIRN_HOME's archive id


def archive_id() -> str:
    """A random id for this CAIRN_HOME's archive, made once (push marks are kept per archive)."""
    from cairn.home import cairn_home
    from cairn.util.atomic import atomic_write_text

    path = cairn_home() / "team-archive-id"
    try:
        text = path.read_text(encoding="utf-8").strip()
        if text:
            return text
    except OSError:
        pass
    new = uuid.uuid4().hex
    atomic_write_text(path, new + "\n")
    return new


def identity(project: object) -> Identity:
    """The identity of a push or search from the current project (CairnError without a git remote)."""
    import getpass
    import socket

    from cairn.config import settings

    root = getattr(project, "root", None)
    if root is None:
        raise CairnError("no project here: the team archive names projects by their git remote; cd into one")
    remote = git_remote(Path(root))
    if not remote:
        raise CairnError(
            f"{root} has no git remote: the team archive names a project by its remote (`git remote add origin URL`)"
        )
    team = settings(Path(root)).team
    try:
        login = getpass.getuser()
    except (OSError, KeyError):
        login = "unknown"
    ident = normalize_remote(remote)
    return Identity(
        project=ident,
        project_name=ident.rsplit("/", 1)[-1],
        local_project_id=str(getattr(project, "id", "")),
        user=team.user.strip() or git_user(Path(root)) or login,
        machine=team.machine.strip() or socket.gethostname(),
        archive=archive_id(),
    )

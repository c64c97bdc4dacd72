"""A real, throwaway PostgreSQL server for the team-archive tests and bench/team_scale.py.

`initdb` + `pg_ctl` from Debian's `postgresql` package (or any `initdb` on PATH) in a temporary
folder, on a free local port, with password (scram-sha-256) authentication over TCP. PostgreSQL
refuses to run as root: when the tests run as root the server runs as `nobody` (`runuser`, else
`su`), its folder handed over to that user. `available()` says why it cannot run (no binaries,
no way to drop root) so the tests skip with that reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

PASSWORD = "team-secret-pw"
USER = "cairn"
RUN_AS = "nobody"


def bin_dir() -> Path | None:
    """The folder holding initdb/pg_ctl/postgres (newest Debian version first, then PATH)."""
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True):
        if all(Path(d, b).is_file() for b in ("initdb", "pg_ctl", "postgres")):
            return Path(d)
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    return None


def _drop_root() -> list[str] | None:
    if os.geteuid() != 0:
        return []
    import pwd

    try:
        pwd.getpwnam(RUN_AS)
    except KeyError:
        return None
    if shutil.which("runuser"):
        return ["runuser", "-u", RUN_AS, "--"]
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={RUN_AS}", f"--regid={RUN_AS}", "--clear-groups", "--"]
    return None


def available() -> str | None:
    """None when a server can be started here, else the reason it cannot."""
    if bin_dir() is None:
        return "PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql"
    if _drop_root() is None:
        return (
            f"running as root without runuser/setpriv or a `{RUN_AS}` user to start PostgreSQL as an unprivileged user"
        )
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """One server: `start()`, `url`, `stop()`; `start()` again after a stop keeps the data."""

    def __init__(self, *, fast: bool = True, settings: dict[str, str] | None = None) -> None:
        reason = available()
        if reason:
            raise RuntimeError(reason)
        self.bin = bin_dir()
        self.prefix = _drop_root() or []
        self.base = Path(tempfile.mkdtemp(prefix="cairn-pg-"))
        os.chmod(self.base, 0o755)
        self.data = self.base / "data"
        self.data.mkdir(mode=0o700)
        self.port = free_port()
        pwfile = self.base / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.prefix:
            shutil.chown(self.data, RUN_AS)
            shutil.chown(pwfile, RUN_AS)
        self.settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.data),
            "max_connections": "60",
            "shared_buffers": "128MB",
        }
        if fast:  # tests: durability is not what they measure
            self.settings.update({"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"})
        self.settings.update(settings or {})
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            USER,
            f"--pwfile={pwfile}",
            "--auth=scram-sha-256",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        pwfile.unlink()

    def _run(self, prog: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        assert self.bin is not None
        return subprocess.run(
            [*self.prefix, str(self.bin / prog), *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=120,
            cwd=self.base,
        )

    @property
    def url(self) -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/postgres"

    def url_with(self, *, password: str | None = None, port: int | None = None, dbname: str = "postgres") -> str:
        return f"postgresql://{USER}:{password or PASSWORD}@127.0.0.1:{port or self.port}/{dbname}"

    def start(self) -> None:
        opts = " ".join(f"-c {k}={v}" for k, v in self.settings.items()) + f" -p {self.port}"
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.data / "server.log"), "-w", "-t", "60", "start"
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop", check=False)

    def psql(self, sql: str) -> str:
        """Run SQL through psql (for checks independent of cairn's own code)."""
        assert self.bin is not None
        psql = self.bin / "psql" if (self.bin / "psql").exists() else Path(shutil.which("psql") or "psql")
        out = subprocess.run(
            [str(psql), self.url, "-At", "-c", sql], capture_output=True, text=True, check=True, timeout=120
        )
        return out.stdout.strip()

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)

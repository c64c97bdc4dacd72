"""`cairn backup` and `cairn restore`: snapshots of the session archive, mirrored and encrypted."""

from __future__ import annotations

import argparse
import os
import sys

from cairn.cli.common import add_json, print_json
from cairn.cli.sessions_cmd import db_errors

BACKUP_HELP = """\
Take a consistent snapshot of the session archive into ~/.cairn/backups (the newest N are
kept; N = [sessions] backup_keep in ~/.cairn/config.toml, default 7). `cairn sessions ingest`
also takes one automatically, at most once a day.

--mirror DIR also writes a copy into DIR (e.g. a synced folder). With --encrypt (or
--passphrase-env VAR) that copy is encrypted: scrypt key derivation + AES-256-GCM. The
passphrase is read from the environment variable VAR, or asked for on the terminal; it is
never taken as a command-line value.
"""

RESTORE_HELP = """\
Replace the session archive with a backup (plain or encrypted). The backup is decrypted and
verified first (integrity check, expected tables, schema version); the live archive is only
replaced with --yes, and a snapshot of it is kept in ~/.cairn/backups before that.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "backup",
        help="snapshot the session archive (optionally mirrored, encrypted)",
        description=BACKUP_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--mirror", metavar="DIR", help="also write a copy into DIR (a synced folder)")
    p.add_argument("--encrypt", action="store_true", help="encrypt the mirror copy with a passphrase")
    p.add_argument("--passphrase-env", metavar="VAR", help="read the passphrase from environment variable VAR")
    p.add_argument("--keep", type=int, metavar="N", help="keep the newest N snapshots (default: config or 7)")
    add_json(p)
    p.set_defaults(func=db_errors(cmd_backup))

    r = sub.add_parser(
        "restore",
        help="verify a backup and restore it as the session archive",
        description=RESTORE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("file", metavar="FILE", help="a snapshot or mirror copy (.db or .db.enc)")
    r.add_argument("--passphrase-env", metavar="VAR", help="read the passphrase from environment variable VAR")
    r.add_argument("--yes", action="store_true", help="really replace the live archive")
    add_json(r)
    r.set_defaults(func=db_errors(cmd_restore))


def _passphrase(var: str | None, *, confirm: bool) -> str:
    """From $VAR, else an interactive prompt (twice when creating); never from argv."""
    from getpass import getpass

    from cairn.errors import CairnError

    if var:
        value = os.environ.get(var)
        if not value:
            raise CairnError(f"environment variable {var} is not set or empty")
        return value
    if not sys.stdin.isatty():
        raise CairnError("no terminal to ask for the passphrase: use --passphrase-env VAR")
    first = getpass("passphrase: ")
    if confirm and getpass("again: ") != first:
        raise CairnError("the two passphrases differ")
    if not first:
        raise CairnError("empty passphrase")
    return first


def cmd_backup(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError
    from cairn.sessions.archive import archive_path, open_archive
    from cairn.sessions.backup import backup, mirror

    if not archive_path().exists():
        raise CairnError("no session archive yet: run `cairn sessions ingest` first")
    from cairn.sessions.archive_schema import restore_hint
    from cairn.sessions.backup import damage_of

    why = damage_of(archive_path())
    if why is not None:  # checked before copying: a damaged archive never rotates out good backups
        raise CairnError(f"the session archive is damaged ({why}): no backup taken; {restore_hint()}")
    if args.keep is not None and args.keep < 1:
        raise CairnError("--keep must be 1 or more")
    if (args.encrypt or args.passphrase_env) and not args.mirror:
        raise CairnError("encryption applies to the --mirror copy: give --mirror DIR")
    passphrase = _passphrase(args.passphrase_env, confirm=True) if (args.encrypt or args.passphrase_env) else None
    con = open_archive()
    try:
        snap = backup(con, keep=args.keep)
        copy = mirror(con, args.mirror, passphrase=passphrase, source=snap) if args.mirror else None
    finally:
        con.close()
    if args.json:
        print_json({"backup": str(snap), "mirror": str(copy) if copy else None, "encrypted": passphrase is not None})
    else:
        print(f"backup: {snap}")
        if copy:
            print(f"mirror: {copy}" + (" (encrypted)" if passphrase else ""))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cairn.sessions.backup import is_encrypted, restore

    src = Path(args.file).expanduser()
    passphrase = None
    if src.is_file() and is_encrypted(src):
        passphrase = _passphrase(args.passphrase_env, confirm=False)
    info = restore(src, passphrase=passphrase, yes=args.yes)
    if args.json:
        print_json(info)
    else:
        print(f"restored {info['sessions']} sessions, {info['turns']} turns from {src}")
        if info.get("damaged"):
            print(f"the damaged archive it replaced is kept aside as {info['damaged']}")
        if info.get("previous"):
            print(f"the archive it replaced is kept as {info['previous']}")
    return 0

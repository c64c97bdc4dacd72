"""Decision records found where they are: folders at any depth, record shapes, status, supersedes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.codemap.knowledge.record_nodes import clean_title, import_records
from cairn.codemap.knowledge.records import classify
from cairn.memory import live_version, load_knowledge
from cairn.project import resolve_project

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "adr_repo"

EXPECTED = {
    "docs/adr/0001-use-postgres.md": ("decision", "superseded"),
    "docs/adr/0002-use-sqlite.md": ("decision", "accepted"),
    "docs/adr/0003-wal-mode.md": ("decision", "proposed"),
    "services/billing/docs/decisions/0001-money-as-floats.md": ("decision", "deprecated"),
    "services/billing/docs/decisions/0002-money-as-strings.md": ("decision", "superseded"),
    "services/billing/docs/decisions/0003-money-as-integer-cents.md": ("decision", "accepted"),
    "postmortems/2024-03-01-checkout-outage.md": ("bug", "done"),
    "architecture/choose-a-queue.md": ("decision", "accepted"),
    "docs/notes/onboarding.md": ("note", "active"),
    "rfcs/0007-plugin-api.md": ("decision", "active"),
    "design/adr-012-caching.md": ("decision", "active"),
}


@pytest.fixture
def repo(tmp_path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "repo"))


def by_path(nodes):
    return {n.path: n for n in nodes}


def test_detection_set_types_and_statuses(repo) -> None:
    nodes = by_path(import_records(repo))
    assert {p: (n.type, n.status) for p, n in nodes.items()} == EXPECTED
    for node in nodes.values():
        assert node.origin == "adr" and node.read_only


def test_titles_dates_and_bodies(repo) -> None:
    nodes = by_path(import_records(repo))
    pg = nodes["docs/adr/0001-use-postgres.md"]
    assert pg.title == "Use Postgres for orders" and pg.created == "2023-01-10"
    assert pg.body.startswith("Date: 2023-01-10") and "We will use Postgres." in pg.body
    assert nodes["services/billing/docs/decisions/0001-money-as-floats.md"].created == "2022-02-02"
    assert nodes["docs/adr/0003-wal-mode.md"].created == "2023-07-15"
    assert nodes["design/adr-012-caching.md"].title == "Cache product pages"
    assert clean_title("RFC 7: Plugin API") == "Plugin API" and clean_title("12. Use X") == "Use X"


def test_supersede_links_by_markdown_link_and_by_number(repo) -> None:
    nodes = import_records(repo)
    p = by_path(nodes)
    pg, lite, wal = (p[f"docs/adr/{n}"] for n in ("0001-use-postgres.md", "0002-use-sqlite.md", "0003-wal-mode.md"))
    assert pg.superseded_by == lite.id and lite.supersedes == pg.id
    assert any(lk.rel == "amended-by" and lk.target == wal.id for lk in lite.links)
    assert any(lk.rel == "amends" and lk.target == lite.id for lk in wal.links)
    strings = p["services/billing/docs/decisions/0002-money-as-strings.md"]
    cents = p["services/billing/docs/decisions/0003-money-as-integer-cents.md"]
    assert strings.superseded_by == cents.id and cents.supersedes == strings.id
    assert live_version(nodes, pg.id).id == lite.id


def test_ids_are_unique_across_a_monorepo(repo) -> None:
    ids = [n.id for n in import_records(repo)]
    assert len(ids) == len(set(ids))
    assert import_records(repo)[0].id == import_records(repo)[0].id  # stable


def test_config_globs_add_and_exclude(repo) -> None:
    cfg = {"memory": {"adr_globs": ["custom/records/*.md"], "adr_exclude": ["rfcs/*"]}}
    nodes = by_path(import_records(repo, config=cfg))
    assert "custom/records/why-we-vendor.md" in nodes and "rfcs/0007-plugin-api.md" not in nodes


def test_config_file_is_honoured_through_load_knowledge(repo) -> None:
    (repo / ".cairn").mkdir()
    (repo / ".cairn" / "config.toml").write_text('[memory]\nadr_globs = ["custom/records/*.md"]\n')
    nodes = by_path(load_knowledge(resolve_project(root=repo)))
    assert "custom/records/why-we-vendor.md" in nodes
    assert nodes["docs/adr/0002-use-sqlite.md"].origin == "adr"


def test_given_path_list_skips_the_walk(repo) -> None:
    nodes = import_records(repo, paths=["docs/adr/0002-use-sqlite.md", "docs/guide.md"])
    assert [n.path for n in nodes] == ["docs/adr/0002-use-sqlite.md"]


@pytest.mark.parametrize(
    ("rel", "text", "want"),
    [
        ("x/0004-thing.md", "# T\n\n## Context\n\nc\n\n## Decision\n\nd\n", "decision"),  # name + 2 sections
        ("x/thing.md", "# T\n\n## Context\n\nc\n\n## Decision\n\nd\n", None),  # 2 sections, no record name
        ("docs/architecture/overview.md", "# Overview\n\nBoxes and arrows.\n", None),
        ("docs/architecture/0002-x.md", "# X\n\ntext\n", "decision"),
        ("docs/adr/0000-template.md", "# [short title]\n\nDate: YYYY-MM-DD\n", None),
        ("docs/adr/0010-django-templates.md", "# Use Django templates\n\nDate: 2020-01-01\n", "decision"),
        ("docs/decisions/index.md", "# Decisions\n", None),
        ("rfcs/text/0001-private-fields.md", "# Summary\n\nx\n", "decision"),
        ("text/0001-private-fields.md", "# Summary\n\nx\n\n# Motivation\n\ny\n\n# Drawbacks\n\nz\n", "decision"),
    ],
)
def test_classify_rules(rel: str, text: str, want: str | None) -> None:
    assert classify(rel, text) == want


def test_fixture_and_template_folders_are_not_the_projects_records(repo) -> None:
    fixture = repo / "tests" / "fixtures" / "docs" / "adr" / "0001-x.md"
    fixture.parent.mkdir(parents=True)
    fixture.write_text((repo / "docs/adr/0002-use-sqlite.md").read_text())
    assert "tests/fixtures/docs/adr/0001-x.md" not in by_path(import_records(repo))
    cfg = {"memory": {"adr_globs": ["tests/fixtures/docs/adr/*.md"]}}
    assert "tests/fixtures/docs/adr/0001-x.md" in by_path(import_records(repo, config=cfg))


def test_a_new_decision_can_supersede_a_record_without_touching_it(repo) -> None:
    from cairn.memory.facts import Fact
    from cairn.memory.vault import Vault
    from helpers import git

    git(repo, "init", "-q")
    (repo / ".cairn").mkdir()
    project = resolve_project(root=repo)
    before = (repo / "docs/adr/0002-use-sqlite.md").read_bytes()
    context = [n for n in load_knowledge(project) if n.origin != "project"]
    [res] = Vault.for_project(project).remember(
        [Fact("Use DuckDB for orders", type="decision", supersedes="Use SQLite for orders")], context=context
    )
    assert res.action == "superseded" and res.superseded.startswith("0002-use-sqlite-")
    assert (repo / "docs/adr/0002-use-sqlite.md").read_bytes() == before
    nodes = load_knowledge(project)
    old = by_path(nodes)["docs/adr/0002-use-sqlite.md"]
    assert old.state == "superseded" and old.superseded_by == res.id
    first = by_path(nodes)["docs/adr/0001-use-postgres.md"]
    assert live_version(nodes, first.id).id == res.id


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("# X\n\n## Status: Accepted\n\n## Context\n\nc\n", "accepted"),
        ("# X\n\n| Field | Value |\n|---|---|\n| Status | Deprecated |\n", "deprecated"),
        ("# X\n\nStatus: **Rejected**\n", "rejected"),
        ("# X\n\n## Status\n\nPartly superseded by [4](0004-y.md)\n", "accepted"),
        ("---\nstatus: draft\n---\n# X\n", "proposed"),
        ("# X\n\nNo status at all.\n", "active"),
    ],
)
def test_status_styles(text: str, status: str) -> None:
    from cairn.codemap.knowledge.record_nodes import parse_record

    node, _ = parse_record("docs/adr/0001-x.md", text, "decision")
    assert node.status == status


# The Status section of cometbft's ADR template (docs/references/architecture/adr-template.md,
# Apache-2.0), left unfilled in three of its ADRs: guidance, not a status.
TEMPLATE_STATUS = """# ADR 057: RPC

## Context

The RPC layer needs a redesign.

## Decision

Split it.

## Status

> A decision may be "proposed" if it hasn't been agreed upon yet, or "accepted" once it is agreed upon. \
If a later ADR changes or reverses a decision, it may be marked as "deprecated" or "superseded" with a \
reference to its replacement.

{Deprecated|Proposed|Accepted}

## Consequences

Fewer endpoints.
"""


def _records(tmp_path, files: dict[str, str]):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return by_path(import_records(tmp_path, list(files)))


def test_template_guidance_in_the_status_section_is_not_a_status(tmp_path) -> None:
    got = _records(
        tmp_path,
        {
            "docs/references/architecture/adr-057-rpc.md": TEMPLATE_STATUS,
            "docs/references/architecture/adr-058-x.md": TEMPLATE_STATUS.replace(
                "{Deprecated|Proposed|Accepted}", "<!-- pick one -->\nAccepted"
            ),
        },
    )
    assert got["docs/references/architecture/adr-057-rpc.md"].status == "active"
    assert got["docs/references/architecture/adr-058-x.md"].status == "accepted"


def test_superseded_by_a_bracketed_number_or_a_link_that_misses_is_linked(tmp_path) -> None:
    base = "# ADR {n}: {t}\n\n## Status\n\n{s}\n\n## Context\n\nc\n\n## Decision\n\nd\n"
    got = _records(
        tmp_path,
        {
            "arch/adr-013-old.md": base.format(n=13, t="Old", s="Superseded by [ADR 14]"),
            "arch/adr-014-new.md": base.format(n=14, t="New", s="Accepted"),
            "arch/adr-015-older.md": base.format(n=15, t="Older", s="Superseded by [ADR 14](./adr-14-renamed.md)"),
        },
    )
    new = got["arch/adr-014-new.md"]
    assert got["arch/adr-013-old.md"].superseded_by == new.id
    assert got["arch/adr-015-older.md"].superseded_by == new.id


@pytest.mark.parametrize(
    "status",
    [
        "Superseded: 2020-01-01 by [ADR 14]",
        "Superseded by ADR 14 on 2020-01-01",
        "Superseded on 2020-01-01 by ADR-14",
        "Superseded (2020/01/01) by [ADR 14](adr-014-new.md)",
        "Superseded: March 3, 2021, by #14",
        "Superseded on 3 Mar. 2021 by ADR 14",
        "Replaced by [ADR 14](adr-014-new.md)",
        "Deprecated, replaced by ADR 14",
        "Replaced: 01.02.2020 by ADR 14",
    ],
)
def test_dated_and_replaced_by_supersession_is_linked(tmp_path, status) -> None:
    base = (
        "# ADR {n}: {t}\n\n## Status\n\n{s}\n\n## Context\n\nThe cache was replaced by 3 workers.\n\n## Decision\n\nd\n"
    )
    got = _records(
        tmp_path,
        {
            "arch/adr-013-old.md": base.format(n=13, t="Old", s=status),
            "arch/adr-014-new.md": base.format(n=14, t="New", s="Accepted"),
            "arch/adr-003-three.md": base.format(n=3, t="Three", s="Accepted"),
        },
    )
    old, new = got["arch/adr-013-old.md"], got["arch/adr-014-new.md"]
    assert old.status == "superseded" and old.superseded_by == new.id and new.supersedes == old.id
    # "replaced by 3 workers" in the prose names no record: only the status says what replaced it
    assert not got["arch/adr-014-new.md"].links and not got["arch/adr-003-three.md"].superseded_by
    assert not any(lk.target == got["arch/adr-003-three.md"].id for lk in old.links)


def test_a_record_superseded_in_part_on_a_date_stays_live_and_links(tmp_path) -> None:
    base = "# ADR {n}: {t}\n\n## Status\n\n{s}\n\n## Context\n\nc\n\n## Decision\n\nd\n"
    got = _records(
        tmp_path,
        {
            "arch/adr-013-old.md": base.format(n=13, t="Old", s="Superseded in part on 2020-01-01 by ADR 14"),
            "arch/adr-014-new.md": base.format(n=14, t="New", s="Accepted"),
        },
    )
    old = got["arch/adr-013-old.md"]
    assert old.status == "accepted" and old.superseded_by is None
    assert [(lk.rel, lk.target) for lk in old.links] == [("partly-superseded-by", got["arch/adr-014-new.md"].id)]


def test_an_adr_without_a_status_heading_is_still_a_record(tmp_path) -> None:
    got = _records(
        tmp_path,
        {
            "docs/references/architecture/tendermint-core/adr-008-priv-validator.md": "# ADR 008: SocketPV\n\nNodes should support only two PrivValidator implementations.\n",
            "docs/references/architecture/notes-on-logging.md": "# Logging\n\nSome notes.\n",
        },
    )
    assert list(got) == ["docs/references/architecture/tendermint-core/adr-008-priv-validator.md"]
    assert got["docs/references/architecture/tendermint-core/adr-008-priv-validator.md"].title == "SocketPV"


def test_search_never_prints_superseded_by_none(tmp_path, run_cli) -> None:
    from helpers import make_git_repo

    root = make_git_repo(
        tmp_path / "r",
        {
            "docs/adr/0001-use-cron.md": "# 1. Use cron for the nightly export\n\n"
            "## Status\n\nSuperseded\n\n## Context\n\nnightly export\n\n"
            "## Decision\n\nUse cron for the nightly export.\n",
            "src/export.py": "def nightly_export():\n    pass\n",
        },
    )
    out = run_cli("search", "why cron for the nightly export", "--root", str(root))
    assert out.returncode == 0, out.stderr
    assert "0001-use-cron" in out.stdout and "superseded by None" not in out.stdout


def test_a_design_doc_saying_its_status_in_its_header_is_a_record(tmp_path: Path) -> None:
    """A folder of design docs and one-pagers (crossplane's design/): the status sits in a bullet list
    under the title, whatever sections follow; a note in the same folder without one is not a record."""
    root = tmp_path / "repo"
    design = root / "design"
    (design / "defunct").mkdir(parents=True)
    for i in range(3):
        (design / f"one-pager-topic-{i}.md").write_text(
            f"# Topic {i}\n\n* Owner: Someone (@someone)\n* Status: Accepted\n\n## Background\n\nWhy.\n\n"
            "## Proposal\n\nWhat.\n\n## Alternatives Considered\n\nOthers.\n"
        )
    (design / "defunct" / "one-pager-stack-cli.md").write_text(
        "# Stack CLI\n\n* Owner: Someone (@someone)\n* Reviewers: Maintainers\n* Status: Defunct\n\n"
        "## Background\n\nThe old stack tooling.\n"
    )
    (design / "notes.md").write_text("# Meeting notes\n\nWe talked about the status: fine.\n")
    paths = [p.relative_to(root).as_posix() for p in root.rglob("*.md")]
    found = {n.path for n in import_records(root, paths, {}, None, [])}
    assert "design/defunct/one-pager-stack-cli.md" in found
    assert "design/notes.md" not in found

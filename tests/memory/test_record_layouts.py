"""Decision records in every layout, found by their shape; bad records found or skipped with a note."""

from __future__ import annotations

import json
import time

from cairn.codemap.knowledge.record_nodes import import_records

PROPOSAL = "---\ntype: proposal\ntitle: {t}\nstatus: {s}\n---\n\n## Summary\n\n{t}.\n\n## Motivation\n\nm\n\n## Proposal\n\np\n"
SPEC = (
    "---\nauthor: someone\ncreated on: 2020-01-01\n---\n\n# {t}\n\n## Abstract\n\n{t}.\n\n## Solution Design\n\nd\n\n"
    "## Future considerations\n\nf\n"
)
RST = """{n}. {t}
{bar}

Status
------

**Accepted**

Context
-------

Events need {t}.

Decision
--------

We will do it. See `ADR 1 <0001-first.rst>`_.

Consequences
------------

c
"""


def _write(tmp_path, files: dict[str, str | bytes]) -> list[str]:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return list(files)


def _found(tmp_path, files, notes=None):
    paths = _write(tmp_path, files)
    nodes = import_records(tmp_path, paths, {}) if notes is None else import_records(tmp_path, paths, {}, None, notes)
    return {n.path: n for n in nodes}


def test_proposals_filed_by_status_folders_are_records(tmp_path) -> None:
    got = _found(
        tmp_path,
        {
            "docs/proposals-done/201809-gossip-removal.md": PROPOSAL.format(t="Gossip removal", s="accepted"),
            "docs/proposals-accepted/202012-receive-split.md": PROPOSAL.format(t="Receive split", s="accepted"),
            "docs/proposals-accepted/20221129-avoid-global-sort.md": PROPOSAL.format(
                t="Avoid global sort", s="approved"
            ),
            "docs/proposals-rejected/201807-config.md": PROPOSAL.format(t="Central config", s="rejected"),
            "docs/proposals-accepted/README.md": "# Accepted proposals\n",
            "docs/sharding.md": "# Sharding\n\nHow sharding works.\n",
        },
    )
    assert sorted(got) == [
        "docs/proposals-accepted/202012-receive-split.md",
        "docs/proposals-accepted/20221129-avoid-global-sort.md",
        "docs/proposals-done/201809-gossip-removal.md",
        "docs/proposals-rejected/201807-config.md",
    ]
    assert got["docs/proposals-rejected/201807-config.md"].status == "rejected"


def test_specs_named_after_issues_with_spaces_and_folders_are_records(tmp_path) -> None:
    got = _found(
        tmp_path,
        {
            "doc/specs/#653 - Quake Mode/#653 - Quake Mode.md": SPEC.format(t="Quake Mode"),
            "doc/specs/#653 - Quake Mode/images/flow.png": b"\x89PNG\r\n\x1a\n\x00\x00",
            "doc/specs/#597 - Tab Sizing.md": SPEC.format(t="Tab Sizing"),
            "doc/specs/drafts/576-ProfilesJumplistSpec.md": SPEC.format(t="Profiles in the jumplist"),
            "doc/specs/#1571 - New Tab Menu/spec.md": SPEC.format(t="New tab menu"),
            "doc/specs/settings-spec-template.md": SPEC.format(t="[title]"),
            "doc/building.md": "# Building\n\nRun the build.\n",
        },
    )
    assert sorted(got) == [
        "doc/specs/#1571 - New Tab Menu/spec.md",
        "doc/specs/#597 - Tab Sizing.md",
        "doc/specs/#653 - Quake Mode/#653 - Quake Mode.md",
        "doc/specs/drafts/576-ProfilesJumplistSpec.md",
    ]
    assert got["doc/specs/#597 - Tab Sizing.md"].title == "Tab Sizing"


def test_restructuredtext_records_with_headings_status_and_links(tmp_path) -> None:
    files = {
        f"docs/decisions/000{n}-{slug}.rst": RST.format(n=n, t=t, bar="=" * (len(t) + 3))
        for n, slug, t in ((1, "first", "Event naming"), (2, "second", "Optional fields"))
    }
    files["docs/decisions/index.rst"] = "Decisions\n=========\n\n.. toctree::\n\n   0001-first\n"
    got = _found(tmp_path, files)
    assert sorted(got) == ["docs/decisions/0001-first.rst", "docs/decisions/0002-second.rst"]
    second = got["docs/decisions/0002-second.rst"]
    assert (second.title, second.status) == ("Optional fields", "accepted")
    from cairn.codemap.knowledge.record_shape import as_markdown

    assert "# 2. Optional fields" in as_markdown(files["docs/decisions/0002-second.rst"], "x.rst")


def test_design_docs_without_numbers_by_their_sections(tmp_path) -> None:
    design = "# Rate limiting\n\n## Motivation\n\nm\n\n## Goals\n\ng\n\n## Non-Goals\n\nn\n\n## Alternatives\n\na\n"
    got = _found(
        tmp_path,
        {
            "site/contributions/design/rate-limit.md": design,
            "site/contributions/design/overview.md": "# Overview\n\nThe parts of the system.\n",
        },
    )
    assert list(got) == ["site/contributions/design/rate-limit.md"]


def test_dated_posts_chat_logs_templates_and_indexes_are_not_records(tmp_path) -> None:
    post = "---\ntitle: Release {n}\ndate: 2021-0{n}-01\n---\n\nWe released it.\n\n## Upgrade guide\n\nu\n"
    chat = (
        "# 2026-01-12\n\n_**User**_\n\nwrite the design\n\n_**Agent**_\n\n## Motivation\n\nm\n\n## Proposal\n\np\n\n"
        "## Alternatives\n\na\n\n_**User**_\n\nok\n\n_**Agent**_\n\ndone\n\n_**User**_\n\nthanks\n\n_**Agent**_\n\nyes\n"
    )
    records = {
        f"docs/adr/000{n}-use-{w}.md": f"# {n}. Use {w}\n\n## Status\n\nAccepted\n\n## Context\n\nc\n"
        for n, w in ((1, "go"), (2, "sqlite"), (3, "grpc"))
    }
    index = "# Decision records\n\n" + "".join(
        f"- [{n}](000{n}-use-{w}.md)\n" for n, w in ((1, "go"), (2, "sqlite"), (3, "grpc"))
    )
    got = _found(
        tmp_path,
        {
            **records,
            **{f"website/blog/2021-0{n}-01-release-{n}.md": post.format(n=n) for n in (1, 2, 3)},
            ".specstory/history/2026-01-12_15-08-38Z-design.md": chat,
            "rfcs/_YYYY-MM-DD-issue#-title.md": "# RFC <issue#> - <YYYY-MM-DD> - <title>\n\n## Context\n",
            "docs/adr/0000-records.md": index,
        },
    )
    assert sorted(got) == sorted(records)


def test_a_folder_of_numbered_parts_is_one_record(tmp_path) -> None:
    parts = {
        "01-survey.md": "# Survey\n\nWhat others do.\n",
        "02-design.md": "# Design\n\n## Proposal\n\np\n",
        "03-open-questions.md": "# Open questions\n\nq\n",
        "README.md": "# Storage engine\n\n## Summary\n\ns\n",
    }
    files = {f"rfcs/0007-storage-engine/{name}": text for name, text in parts.items()}
    files.update(
        {
            "rfcs/0006-cache.md": "# Cache\n\n## Summary\n\nc\n",
            "rfcs/0008-auth.md": "# Auth\n\n## Summary\n\na\n",
            "docs/storage-rfc/01-survey.md": "# Survey\n\ns\n",
            "docs/storage-rfc/02-design.md": "# Design\n\nd\n",
        }
    )
    got = _found(tmp_path, files)
    folder = [n for p, n in got.items() if p.startswith("rfcs/0007-storage-engine/")]
    assert len(folder) == 4 and {n.extra["record"] for n in folder} == {"rfcs/0007-storage-engine"}
    assert got["rfcs/0007-storage-engine/01-survey.md"].title == "Storage engine: Survey"
    assert "record" not in got["rfcs/0006-cache.md"].extra
    assert got["docs/storage-rfc/02-design.md"].extra["record"] == "docs/storage-rfc"
    from cairn.codemap.knowledge.record_shape import Layout

    layout = Layout(files)
    assert "rfcs" in layout.series and layout.record_folder("rfcs/0006-cache.md") is None
    # a file named as the folder beside it is the record's main part; numbered topics are a series, not parts
    layout = Layout(
        [
            "rfc/20240513-static-evaluation.md",
            "rfc/20240513-static-evaluation/1-modules.md",
            "rfc/20240513-static-evaluation/2-providers.md",
            "rfc/20230101-a.md",
            "rfc/20230102-b.md",
            "docs/decision-log/01-use-react.md",
            "docs/decision-log/02-use-graphql.md",
            "docs/decision-log/03-drop-redux.md",
        ]
    )
    assert layout.record_folder("rfc/20240513-static-evaluation.md") == "rfc/20240513-static-evaluation"
    assert layout.parts("rfc/20240513-static-evaluation") == 3
    assert layout.record_folder("docs/decision-log/02-use-graphql.md") is None


def test_record_names() -> None:
    from cairn.codemap.knowledge.record_shape import name_kind

    assert [
        name_kind(n)
        for n in (
            "0007-x.md",
            "kep-1234.md",
            "#653 - Quake Mode",
            "2021-06-29-7709-x.md",
            "20221129-x.md",
            "202012-x.md",
            "2023-10-16_028-x.md",
            "SUPERSEDED-20230719-plan.md",
            "01-survey.md",
            "overview.md",
        )
    ] == ["numbered", "numbered", "issue", "dated", "dated", "dated", "dated", "dated", None, None]


def test_a_status_in_the_name_and_a_dated_replacement(tmp_path) -> None:
    old = "# 1. Use cron\n\n## Status\n\nReplaced by [ADR 2](0002-use-queue.md) on 2021-03-04\n\n## Context\n\nc\n"
    got = _found(
        tmp_path,
        {
            "docs/adr/0001-use-cron.md": old,
            "docs/adr/0002-use-queue.md": "# 2. Use a queue\n\n## Status\n\nAccepted\n\n## Context\n\nc\n",
            "docs/proposals/search/SUPERSEDED-20230719-plan.md": PROPOSAL.format(t="Plan", s="accepted"),
        },
    )
    assert got["docs/adr/0001-use-cron.md"].superseded_by == got["docs/adr/0002-use-queue.md"].id
    assert got["docs/proposals/search/SUPERSEDED-20230719-plan.md"].status == "superseded"


def test_bad_records_are_found_or_skipped_with_a_note(tmp_path) -> None:
    notes: list[tuple[str, str]] = []
    got = _found(
        tmp_path,
        {
            "docs/adr/0001-broken-front-matter.md": "---\ntitle: [unclosed\nstatus: : :\n---\n# Broken\n\n## Context\n\nc\n",
            "docs/adr/0002-no-title.md": "Just a decision without a heading.\n\n## Decision\n\nd\n",
            "docs/adr/0003-binary.md": b"\x00\x01\x02PK\x03\x04" * 100,
            "docs/adr/0004-self.md": "# 4. Self\n\n## Status\n\nSuperseded by [ADR 4](0004-self.md)\n\n## Context\n\nc\n",
            "docs/adr/0005-missing.md": "# 5. Missing\n\n## Status\n\nSuperseded by [ADR 9](0009-gone.md)\n\n## Context\n\nc\n",
            "docs/adr/0006-fine.md": "# 6. Fine\n\n## Status\n\nAccepted\n",
        },
        notes,
    )
    assert sorted(got) == [
        "docs/adr/0001-broken-front-matter.md",
        "docs/adr/0002-no-title.md",
        "docs/adr/0004-self.md",
        "docs/adr/0005-missing.md",
        "docs/adr/0006-fine.md",
    ]
    assert got["docs/adr/0002-no-title.md"].title == "No title"
    assert got["docs/adr/0004-self.md"].superseded_by is None and got["docs/adr/0005-missing.md"].superseded_by is None
    noted = dict(notes)
    assert (
        "binary" in noted["docs/adr/0003-binary.md"] and "front matter" in noted["docs/adr/0001-broken-front-matter.md"]
    )
    assert "itself" in noted["docs/adr/0004-self.md"] and "no such record" in noted["docs/adr/0005-missing.md"]


def test_a_thousand_records_are_all_found_quickly_and_one_odd_one_is_noted(tmp_path) -> None:
    files = {
        f"docs/adr/{n:04d}-decision-{n}.md": f"# {n}. Decision {n}\n\n## Status\n\n"
        + ("Accepted" if n < 999 else f"Superseded by [ADR {n - 1}]({n - 1:04d}-decision-{n - 1}.md)")
        + f"\n\n## Context\n\nWe needed choice {n}.\n"
        for n in range(1, 1001)
    }
    files["docs/adr/1000-decision-1000.md"] = "# 1000. Itself\n\n## Status\n\nSuperseded by ADR 1000\n"
    notes: list[tuple[str, str]] = []
    start = time.perf_counter()
    got = _found(tmp_path, files, notes)
    assert len(got) == 1000 and time.perf_counter() - start < 20
    assert got["docs/adr/0999-decision-999.md"].superseded_by == got["docs/adr/0998-decision-998.md"].id
    assert notes == [("docs/adr/1000-decision-1000.md", "superseded-by itself: ignored")]


def test_memory_doctor_names_the_odd_records_and_still_passes(tmp_path, run_cli) -> None:
    from helpers import make_git_repo

    root = make_git_repo(
        tmp_path / "r",
        {
            "docs/adr/0001-fine.md": "# 1. Fine\n\n## Status\n\nAccepted\n\n## Context\n\nc\n",
            "docs/adr/0002-self.md": "# 2. Self\n\n## Status\n\nSuperseded by [ADR 2](0002-self.md)\n\n## Context\n\nc\n",
            "docs/adr/0003-binary.md": b"\x00\x01binary" * 50,
        },
    )
    out = run_cli("memory", "doctor", "--root", str(root), "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["nodes"] == 2 and report["ok"]
    assert {(r["path"], "itself" in r["note"] or "binary" in r["note"]) for r in report["records"]} == {
        ("docs/adr/0002-self.md", True),
        ("docs/adr/0003-binary.md", True),
    }
    text = run_cli("memory", "doctor", "--root", str(root))
    assert "record: docs/adr/0003-binary.md: binary content under a record's name: skipped" in text.stdout

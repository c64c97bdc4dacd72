"""Design questions find their record from the default search: by evidence, whatever the phrasing;
a record kept as a folder of parts is one hit; a superseded record ranks under its successor."""

from __future__ import annotations

import json

from helpers import make_git_repo

CODE = {
    "src/queue/consumer.py": 'class Consumer:\n    def poll(self, queue):\n        """Take the next message."""\n'
    "        return queue.get()\n\n    def ack(self, message):\n        message.done()\n",
    "src/queue/broker.py": "class Broker:\n    def publish(self, topic, message):\n        self.queues[topic].put(message)\n"
    "\n    def subscribe(self, topic, consumer):\n        self.consumers[topic].append(consumer)\n",
    "src/queue/retry.py": 'def retry_delay(attempt):\n    """Seconds before the next retry."""\n    return 2 ** attempt\n',
    "src/store/redis_cache.py": "import redis\n\nclass RedisCache:\n    def get(self, key):\n        return self.redis.get(key)\n",
    "src/store/settings.py": "REDIS_URL = 'redis://localhost'\nRETENTION_DAYS = 30\n",
    "README.md": "# Queue service\n\nA small message queue with consumers and a broker.\n",
}
RECORDS = {
    "docs/adr/0001-bounded-queues-with-backpressure.md": "# 1. Bounded queues with backpressure\n\n## Status\n\nAccepted\n\n## Context\n\nOne slow consumer stalled the "
    "whole queue: messages piled up in memory until the broker fell over.\n\n## Decision\n\nEvery queue is bounded; "
    "when a slow consumer falls behind, the broker applies backpressure to publishers instead of stalling.\n\n"
    "## Consequences\n\nPublishers may block.\n",
    "docs/adr/0002-data-retention.md": "# 2. Data retention\n\n## Status\n\nAccepted\n\n## Context\n\nWe kept messages forever.\n\n## Decision\n\n"
    "Messages and logs are deleted after thirty days (retention).\n\n## Consequences\n\nOld replays are gone.\n",
    "rfcs/2023-01-05-migrate-from-redis-to-nats.md": "# Migrate from Redis to NATS\n\n## Summary\n\nMove the cache and pub/sub from Redis to NATS.\n\n## Motivation\n\n"
    "Redis pub/sub drops messages when a subscriber disconnects.\n\n## Alternatives\n\nKafka.\n",
}


def _search(run_cli, root, query, *extra):
    out = run_cli("search", query, "--root", str(root), "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["results"]


def test_the_default_decides_by_evidence_record_first_whatever_the_phrasing_code_first_for_code(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "svc", {**CODE, **RECORDS})
    for query, record in (
        (
            "how do we keep a slow consumer from stalling the queue?",
            "docs/adr/0001-bounded-queues-with-backpressure.md",
        ),
        ("is it safe to let one slow consumer fall behind?", "docs/adr/0001-bounded-queues-with-backpressure.md"),
        ("RFC: migrate from Redis to NATS", "rfcs/2023-01-05-migrate-from-redis-to-nats.md"),
        ("ADR on data retention", "docs/adr/0002-data-retention.md"),
    ):
        res = _search(run_cli, root, query)
        assert res[0]["path"] == record, (query, [r["path"] for r in res[:3]])
        assert res[0]["kind"] == "knowledge" and res[0]["why"][0].startswith("first: "), res[0]["why"]
    # a code task and a code question keep the code first, even beside a record on the same words
    res = _search(run_cli, root, "fix retry_delay overflow for a slow consumer in retry.py")
    assert res[0]["path"] == "src/queue/retry.py"
    res = _search(run_cli, root, "where does the Consumer poll the queue")
    assert res[0]["path"] == "src/queue/consumer.py"
    assert not any(w.startswith("first: ") for r in res for w in r["why"])


def test_a_record_folder_of_parts_is_one_hit(tmp_path, run_cli) -> None:
    parts = {
        "01-survey.md": "# Survey\n\nHow other brokers bound their queues: Kafka, RabbitMQ, NATS.\n",
        "02-design.md": "# Design\n\n## Proposal\n\nBound every queue and push back on publishers.\n",
        "03-open-questions.md": "# Open questions\n\nShould a bounded queue drop or block?\n",
        "README.md": "# Queue bounds\n\n## Summary\n\nBounded queues for the broker.\n",
    }
    files = {
        **CODE,
        **{f"rfcs/0007-queue-bounds/{n}": t for n, t in parts.items()},
        "rfcs/0006-auth.md": "# Auth\n\n## Summary\n\nTokens.\n",
        "rfcs/0008-tracing.md": "# Tracing\n\n## Summary\n\nx\n",
    }
    root = make_git_repo(tmp_path / "svc", files)
    res = _search(run_cli, root, "how should the broker bound its queues", "--kind", "knowledge")
    folder = [r for r in res if r["path"].startswith("rfcs/0007-queue-bounds/")]
    assert len(folder) == 1, [r["path"] for r in res]
    assert folder[0]["record"] == "rfcs/0007-queue-bounds" and len(folder[0]["parts"]) == 3
    assert any("best-matching part" in w for w in folder[0]["why"])


def test_a_superseded_record_ranks_under_its_successor(tmp_path, run_cli) -> None:
    old = (
        "# 1. Nightly export with cron\n\n## Status\n\nSuperseded by [ADR 2](0002-scheduler.md) on 2022-05-01\n\n"
        "## Context\n\nThe nightly export of invoices ran from cron on one host.\n\n## Decision\n\nUse cron.\n"
    )
    new = (
        "# 2. One scheduler for every job\n\n## Status\n\nAccepted\n\n## Context\n\nHosts come and go.\n\n"
        "## Decision\n\nJobs start from the cluster scheduler.\n"
    )
    root = make_git_repo(tmp_path / "svc", {**CODE, "docs/adr/0001-cron.md": old, "docs/adr/0002-scheduler.md": new})
    res = _search(run_cli, root, "why is the nightly invoice export run from cron", "--kind", "knowledge")
    assert [r["path"] for r in res[:2]] == ["docs/adr/0002-scheduler.md", "docs/adr/0001-cron.md"]
    assert "which matches the request" in res[0]["why"][0]


def test_restructuredtext_records_are_searched(tmp_path, run_cli) -> None:
    rst = (
        "8. Event signals with personal data\n===================================\n\nStatus\n------\n\n**Accepted**\n\n"
        "Context\n-------\n\nSignals carry names and emails.\n\nDecision\n--------\n\nPublish them; keep retention "
        "short.\n"
    )
    root = make_git_repo(
        tmp_path / "svc",
        {
            **CODE,
            "docs/decisions/0008-signals-with-pii.rst": rst,
            "docs/decisions/0001-purpose.rst": "1. Purpose\n==========\n\nStatus\n"
            "------\n\nAccepted\n\nContext\n-------\n\nWhy this repo.\n",
        },
    )
    res = _search(run_cli, root, "can events carry personal data like emails?", "--kind", "knowledge")
    assert res[0]["path"] == "docs/decisions/0008-signals-with-pii.rst"
    assert res[0]["title"] == "Event signals with personal data" and res[0]["status"] == "accepted"


def test_a_title_word_in_half_the_records_still_finds_its_record(tmp_path) -> None:
    """Among a few records on one topic, most request words are in half of them or more: FTS5's own IDF
    gives such a word nothing, title or not, and the record holding the one rarer word ("multiple")
    won the record channel. The record whose title names the whole request leads it."""
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search.query import analyze
    from cairn.search.records import record_scores

    def adr(title: str, body: str) -> str:
        return f"# {title}\n\n## Status\n\nAccepted\n\n## Context\n\n{body}\n\n## Decision\n\nAs above.\n"

    records = {
        "docs/adr/0001-depending-on-multiple-bus-implementations.md": adr(
            "Depending on multiple bus implementations",
            "Services pick one of several brokers at deploy time, so the library must not import one directly.",
        ),
        "docs/adr/0002-multiple-topics-per-bus.md": adr(
            "Multiple topics per bus", "Multiple event types share a topic. Depending on load, implementations differ."
        ),
        "docs/adr/0003-schema-format.md": adr("Schema format", "Depending on the bus, implementations encode it."),
        "docs/adr/0004-outbox.md": adr("Outbox", "Depending on the bus, implementations write to an outbox."),
        "docs/adr/0005-topic-names.md": adr("Topic names", "Names."),
    }
    project = project_for_root(make_git_repo(tmp_path / "svc", {**CODE, **records}))
    index_project(project)
    con = open_index(project)
    scores, _ = record_scores(con, analyze(con, "Add ADR for depending on multiple bus implementations"))
    path = {r[0]: r[1] for r in con.execute("SELECT id, path FROM files")}
    ranked = sorted(scores, key=lambda f: -scores[f])
    assert path[ranked[0]] == "docs/adr/0001-depending-on-multiple-bus-implementations.md", [path[f] for f in ranked]


def test_the_name_of_a_record_series_is_no_topic_word(tmp_path) -> None:
    """ "Add kubeadm types KEP": the KEP says a record is asked for, not which one; named once in one
    record's body it put that record first."""
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search.query import analyze
    from cairn.search.records import topic_terms

    note = {"docs/kubeadm.md": "# Kubeadm types\n\nThe kubeadm types, as the KEP (a PEP, a CAEP) says.\n"}
    project = project_for_root(make_git_repo(tmp_path / "svc", {**CODE, **note}))
    index_project(project)
    con = open_index(project)
    for request in ("Add kubeadm types KEP", "PEP for kubeadm types", "kubeadm types CAEP"):
        assert {t.text for t in topic_terms(analyze(con, request))} == {"kubeadm", "types"}, request


def test_a_question_the_code_answers_still_shows_its_best_record_in_the_top_five(tmp_path, run_cli) -> None:
    """No evidence puts the record first or second, yet a question (not a change to make) keeps it
    in the first five; a commit-style request keeps the code alone there."""
    root = make_git_repo(tmp_path / "svc", {**CODE, **RECORDS})
    res = _search(run_cli, root, "where does the Consumer poll the queue?")
    assert res[0]["path"] == "src/queue/consumer.py"
    assert [r["kind"] for r in res[:5]].count("knowledge") == 1, [(r["path"], r["kind"]) for r in res[:5]]
    res = _search(run_cli, root, "Consumer polls the queue twice")
    assert all(r["kind"] != "knowledge" for r in res[:5]), [(r["path"], r["kind"]) for r in res[:5]]


def test_a_digit_of_an_abbreviation_is_no_record_word(tmp_path) -> None:
    """ "Kubernetes" brings its short form `k8s` as a related word, and with it an "8": in a record's
    body ("8 nodes") it put a wrong record first. A related word of digits alone names nothing."""
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search.query import analyze
    from cairn.search.ranking import DEFAULT_RANKING
    from cairn.search.records import _terms

    code = {**CODE, "src/k8s/client.py": "def k8s_client():\n    return connect('k8s', port=8)\n"}
    project = project_for_root(make_git_repo(tmp_path / "svc", code))
    index_project(project)
    con = open_index(project)
    q = analyze(con, "Add Managed Kubernetes proposal")
    assert any(t.expansion for t in q.terms), q.terms  # the short form is there
    assert not [t.text for t, _ in _terms(q, DEFAULT_RANKING.knowledge) if t.text.isdigit()]

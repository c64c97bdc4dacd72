"""Retrieval metrics over ranked file lists, the same definitions as the team's benchmark harness."""

from __future__ import annotations

from statistics import mean


def case_metrics(ranked_paths: list[str], gold: list[str]) -> dict[str, float]:
    gold_set = set(gold)
    top5, top10 = ranked_paths[:5], ranked_paths[:10]
    rr = 0.0
    for i, p in enumerate(top10, 1):
        if p in gold_set:
            rr = 1.0 / i
            break
    return {
        "files@5": len(gold_set & set(top5)) / len(gold_set),
        "files@10": len(gold_set & set(top10)) / len(gold_set),
        "hit@1": 1.0 if ranked_paths[:1] and ranked_paths[0] in gold_set else 0.0,
        "mrr@10": rr,
    }


def aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {k: round(mean(r[k] for r in rows), 3) for k in rows[0]}

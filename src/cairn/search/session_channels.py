"""The session stage's channels: the files in play (recent), what changes or was worked on with them
(cochange, coaccess), their neighbourhood (near), their tests (counterpart) and the files being churned.

They read the session's evidence (session_signals.SessionSignals, `req.sig`) and the fusion so far
(`req.fused`), so search/engine.py runs them last, after the first stage and the graph walk. Rows as
in channels.py; weights in ranking.Fusion.
"""

from __future__ import annotations

from cairn.search.channels import Channel, Request, why_untouched

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.search.hit import Hit


def _recent(req: Request) -> tuple[list[int], float]:
    return req.sig.recent, 1.0


def _explain_recent(req: Request, hits: list[Hit]) -> None:
    said = {
        "edited": "edited in this session",
        "created": "edited in this session",
        "read": "read in this session",
        "named": "searched in this session",
    }
    for h in hits:
        how = req.sig.touched.get(h.file_id)
        if how in said:
            h.why.append(said[how])


def _cochange(req: Request) -> tuple[list[int], float]:
    return req.top(req.sig.cochange), 1.0


def _explain_cochange(req: Request, hits: list[Hit]) -> None:
    from cairn.codemap.history import together

    sig = req.sig
    if not sig.seeds:
        return
    best = max(sig.seeds, key=lambda f: sig.seeds[f])
    for h in hits:
        if h.file_id in sig.cochange:
            both, n = together(req.con, h.path, sig.paths[best])
            if both:
                h.why.append(f"changes with {sig.paths[best].rsplit('/', 1)[-1]} in {both} of its last {n} commits")


def _coaccess(req: Request) -> tuple[list[int], float]:
    return req.top(req.sig.coaccess), 1.0


def _explain_coaccess(req: Request, hits: list[Hit]) -> None:
    why_untouched(req, hits, req.sig.coaccess, "worked on with the files in play in earlier sessions")


def near_ranking(near: dict[int, float], fused: dict[int, float], depth: int, proximity: bool = False) -> list[int]:
    """The neighbourhood of the files in play, the best match for this request first (or the
    closest first, `proximity`)."""
    if proximity:
        return sorted(near, key=lambda f: (-near[f], -fused.get(f, 0.0), f))[:depth]
    return sorted(near, key=lambda f: (-fused.get(f, 0.0), -near[f], f))[:depth]


def _near(req: Request) -> tuple[list[int], float]:
    return near_ranking(req.sig.near, req.fused, req.ranking.fusion.depth), 1.0


def _counterpart(req: Request) -> tuple[list[int], float]:
    if not (req.sig.counterparts and req.ranking.fusion.counterpart):
        return [], 1.0
    return near_ranking(req.sig.counterparts, req.fused, req.ranking.fusion.depth, proximity=True), 1.0


def _explain_counterpart(req: Request, hits: list[Hit]) -> None:
    why_untouched(req, hits, req.sig.counterparts, "the test (or tested file) of a file in play")


def _churn(req: Request) -> tuple[list[int], float]:
    return req.top(req.sig.churn), 1.0


SESSION = (
    Channel("recent", lambda req: req.ranking.fusion.recent, _recent, _explain_recent),
    Channel("cochange", lambda req: req.ranking.fusion.cochange, _cochange, _explain_cochange),
    Channel("coaccess", lambda req: req.ranking.fusion.coaccess, _coaccess, _explain_coaccess),
    Channel("near", lambda req: req.ranking.fusion.near, _near),
    Channel("counterpart", lambda req: req.ranking.fusion.counterpart, _counterpart, _explain_counterpart),
    Channel("churn", lambda req: req.ranking.fusion.churn, _churn),
)

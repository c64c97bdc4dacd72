"""The session stage's channels: the files in play (recent), what changes or was worked on with them
(cochange, coaccess), their neighbourhood (near), their tests (counterpart: weighed up on a follow-up
that says little) and the files being churned.

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


def vague_follow_up(req: Request) -> bool:
    """A follow-up prompt that says little ("go ahead and implement it", "fix the two bugs as well"):
    files are in play and at most `fusion.vague_terms` of its words are distinctive."""
    return bool(req.sig.seeds) and req.q.distinctive <= req.ranking.fusion.vague_terms


def _counterpart_weight(req: Request) -> float:
    """The tests of the files in play count `fusion.vague` times more on a vague follow-up: its few
    words match files at random, while the test of the file just edited is what the next step opens
    (most novel gold tests were missed, ranked 10-16 under the prompt's chance matches)."""
    f = req.ranking.fusion
    return f.counterpart * f.vague if vague_follow_up(req) else f.counterpart


def _counterpart(req: Request) -> tuple[list[int], float]:
    f = req.ranking.fusion
    found = req.sig.counterparts
    if not (found and f.counterpart):
        return [], 1.0
    if f.vague != 1.0 and vague_follow_up(req):  # weighed up: only those beside the files most in play
        least = f.vague_close * max(found.values())
        found = {fid: w for fid, w in found.items() if w >= least}
    return near_ranking(found, req.fused, f.depth, proximity=True), 1.0


def _explain_counterpart(req: Request, hits: list[Hit]) -> None:
    why_untouched(req, hits, req.sig.counterparts, "the test (or tested file) of a file in play")


def _churn(req: Request) -> tuple[list[int], float]:
    return req.top(req.sig.churn), 1.0


SESSION = (
    Channel("recent", lambda req: req.ranking.fusion.recent, _recent, _explain_recent),
    Channel("cochange", lambda req: req.ranking.fusion.cochange, _cochange, _explain_cochange),
    Channel("coaccess", lambda req: req.ranking.fusion.coaccess, _coaccess, _explain_coaccess),
    Channel("near", lambda req: req.ranking.fusion.near, _near),
    Channel("counterpart", _counterpart_weight, _counterpart, _explain_counterpart),
    Channel("churn", lambda req: req.ranking.fusion.churn, _churn),
)

"""A report that uses a public API (a facade: `jinja2.Template`, `attrs.define`, `console.print(Panel(...))`)
is answered by the module whose text its words match best, when the facade is first only by the other
channels (issue 38: attrs#1427 `_next_gen.py` before `_make.py`, rich#3569 `console.py` before `panel.py`);
a file the report points at (a named module, a frame, a definition it names) stays first."""

from __future__ import annotations

from cairn.search.content_first import lift
from cairn.search.hit import Hit


def _hits() -> list[Hit]:
    return [
        Hit(1, "pkg/facade.py", 0.11, "code"),
        Hit(2, "pkg/other.py", 0.10, "code"),
        Hit(3, "pkg/work.py", 0.09, "code"),
    ]


def test_the_texts_first_goes_above_a_first_hit_that_ranks_low_in_the_text():
    hits = _hits()
    lift(hits, {"text": [3, 2, 4, 1], "modules": [1, 3]}, 2, set())
    assert [h.path for h in hits] == ["pkg/work.py", "pkg/facade.py", "pkg/other.py"]
    assert hits[0].score > hits[1].score
    assert "the report's words match its text best" in hits[0].why


def test_a_first_hit_the_text_ranks_well_stays():
    hits = _hits()
    lift(hits, {"text": [3, 1]}, 2, set())  # the first hit is the text's 2nd: the channels agree enough
    assert hits[0].path == "pkg/facade.py"


def test_a_first_hit_the_report_points_at_and_not_at_the_texts_first_stays():
    for pointer in ("name", "mention", "modules", "trace", "tested"):
        hits = _hits()
        lift(hits, {"text": [3, 2, 4, 5, 1], pointer: [1, 7]}, 2, set())
        assert hits[0].path == "pkg/facade.py", pointer


def test_a_named_wrappers_callee_stays_first_and_off_means_off():
    hits = _hits()
    lift(hits, {"text": [3, 2, 4, 5, 1]}, 2, {1})  # delegates.py lifted it on purpose
    assert hits[0].path == "pkg/facade.py"
    hits = _hits()
    lift(hits, {"text": [3, 2, 4, 5, 1]}, 0, set())
    assert hits[0].path == "pkg/facade.py"

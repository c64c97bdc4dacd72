"""Every weight and switch of search, as one typed value: to change a ranking weight, change it here.

`Ranking` is frozen: the request path reads it, never patches it. An ablation, a benchmark
variant or a project's own weights are `dataclasses.replace` of `DEFAULT_RANKING` (or `override`
below with dotted names, "fusion.name": 0), passed to `engine.search_code(ranking=...)`. Each field
says what it does and the measurement that chose it ("inherited, no figure recorded" where the
history holds none). Figures cite docs/benchmarks.md and the commit that brought the value in;
"dev sessions" is ../shared/bench/sessions, "semble" is the semble set's NDCG@10, "cases" the
commit-subject cases. Limits that do not decide an order (SQL batch sizes, memo sizes, regexes)
stay in their modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Fusion:
    """engine.py: each channel's weight in the reciprocal rank fusion, and what the fusion keeps."""

    text: float = 1.0  # whole-file BM25 (text.py); inherited, no figure recorded (9cc0a81)
    chunk: float = 1.0  # best-declaration BM25 (chunks.py); inherited, no figure recorded (9cc0a81)
    name: float = 1.2  # symbols and file names the request names (names.py); inherited, no figure recorded (9cc0a81)
    expansion: float = 0.5  # the caller's related words (--terms, abbreviations); inherited, no figure recorded
    path: float = 0.5  # request words in file and folder names (paths.py); 0: semble 0.881 -> 0.834 ("What did it")
    path_change: float = 0.0  # the path weight for change requests; 0.5: cases files@5 0.784 -> 0.747 ("What did it")
    semantic: float = 0.5  # meaning (semantic.py; only with vectors); 0.5 vs 1.0: cases files@5 +0.010 (docs/benchmarks.md#semantic-channel)
    tooling: float = 2.0  # the configuration files of a tool the request names (tooling.py), times its strength;
    # dev sessions files@5 0.517 -> 0.540, novel@5 0.441 -> 0.468 (1097113)
    phrase: float = 1.5  # word trigrams a few files hold verbatim (phrases.py); dev sessions files@5 +0.013 (443bf28)
    graph_clear: float = 0.5  # the graph walk when two or more terms are distinctive; both graph weights 0:
    # cases files@5 0.772 -> 0.777, within noise, kept for vague follow-ups ("Design choices, measured")
    graph_vague: float = 1.0  # the graph walk when at most one term is distinctive (see graph_clear)
    defines: float = 1.5  # a file defining the name the request gives moves up by this share of the best score;
    # 0: semble 0.881 -> 0.857, symbol queries 0.988 -> 0.894 ("What did it")
    mention: float = 2.0  # a bare file name or tracker item the prompt names; 3 -> 2 with mention_path 6:
    # dev sessions files@5 0.557 -> 0.560 (84496d0)
    mention_path: float = 6.0  # a path the prompt gives: near-certain (84496d0, see mention)
    path_mention: float = 1.0  # a mention this strong (session.mention_*) is a path and fuses at mention_path (84496d0)
    topic: float = 0.5  # the earlier prompts' distinctive words; inherited, no figure recorded (3ff339a)
    recent: float = 5.0  # files already in play: what a follow-up is most often about; inherited, no figure recorded
    cochange: float = 0.6  # files that change with those in play (git history); inherited, no figure recorded
    near: float = 0.5  # untouched files beside those in play, and their import neighbours; no figure recorded (26c6de4)
    counterpart: float = 2.0  # the tests of the files in play and what their tests exercise;
    # dev sessions novel@5 0.398 -> 0.415 (0c0b735)
    vague: float = 3.0  # counterpart times this on a follow-up that says little; novel@5 oh-my-posh +0.023 (log-session-history-37e)
    vague_terms: int = 3  # ...one with at most this many distinctive words while files are in play
    vague_close: float = 0.5  # ...and then only counterparts of at least this share of the closest one's weight
    churn: float = 0.3  # what changes often and lately, for vague prompts only; inherited, no figure recorded
    asked: float = 1.25  # the files earlier requests like this one led to (the project's request log), while no
    # file is in play. Dev sessions with their past (docs/benchmarks-log/2026-12-07.md#log-session-history, leave-one-repository-out):
    # chosen in 3 of 4 folds; against 1.0 cc-backend novel@5 +0.003, getspecstory -0.001; 0.75: macro novel@5 0.483
    asked_in_play: float = 0.0  # ...and once files are in play (the session's own files say more): 0.5 / 1.0 cost
    # getspecstory novel@5 0.009 / 0.004 and oh-my-posh 0.006 / 0.012 (files@5 -0.015 at 1.0); cc-backend +0.005 at 1.0
    coaccess: float = 0.0  # files worked on in the same earlier sessions as those in play (history_recall.together);
    # 0.25 / 0.5: oh-my-posh novel@5 -0.006 / -0.006, cc-backend 0 / -0.004, no fold chose it (benchmarks-log/2026-12-07.md)
    trace: float = 1.0  # a pasted report's stack frames in the project, innermost first (bug_evidence.py);
    # bench/bugs Acc@5 0.762 at 0 / 0.5 / 1, 0.738 at 2 (hono 0.75 -> 0.50) (docs/benchmarks-log/2026-12-07.md#log-bug-reports)
    raises: float = 1.0  # the files holding a report's error message literally (where it is raised); 0 / 1 / 2
    # alike on bench/bugs (no figure chooses it)
    tested: float = 1.0  # the files a report's failing tests exercise; no case of bench/bugs has a test id
    modules: float = 1.0  # a long report's dotted module paths (`from pkg.mod import f`, `pkg.mod.Name`) -> pkg/mod.py
    rrf_k: int = 60  # RRF's constant (Cormack et al.); 30: cases files@5 0.772 -> 0.770 ("Design choices, measured")
    depth: int = 100  # ranks kept per channel list; inherited, no figure recorded (9cc0a81)
    chunk_candidates: int = 40  # files of the first fusion whose declarations are scored; no figure recorded (bbf8df7)
    seeds: int = 8  # best files of the fusion that seed the graph walk; inherited, no figure recorded (9cc0a81)
    session_seed_share: float = 1.0  # graph seeds from the session, against the best hits; no figure recorded (3ff339a)
    in_play_share: float = 0.5  # at most this share of a result list are files the session touched; no figure
    # recorded (26c6de4)


@dataclass(frozen=True)
class RoleFactors:
    """A multiplier per file role (roles.py)."""

    source: float
    test: float
    prose: float
    data: float
    other: float


@dataclass(frozen=True)
class Roles:
    """roles.py and engine._RoleWeights: how much each kind of file counts for this request."""

    code_intent: RoleFactors = RoleFactors(1.0, 0.6, 0.5, 0.6, 0.7)  # a code question; all 1.0 (no role
    # weights): semble 0.881 -> 0.795, cases files@5 0.784 -> 0.658 ("What did it")
    doc_intent: RoleFactors = RoleFactors(0.9, 0.5, 1.3, 0.7, 0.7)  # a documentation question (intent.py); see above
    report_intent: RoleFactors = RoleFactors(1.0, 0.6, 0.5, 0.6, 0.7)  # a long, report-shaped request
    # (long_query.py): = code_intent; bench/bugs: prose 0.3, test 0.3 / 0.45, data 0.3 tie or lose
    prose_repo_share: float = 0.6  # a repository this much prose is documentation: prose counts fully; no figure
    # recorded (abe5b9f)
    in_channels: bool = True  # weigh each channel's list by role, not only the final list; off: semble
    # 0.881 -> 0.865 ("What did it")
    log_factor: float = 0.35  # chat histories, diaries, changelogs in a code request; no figure recorded (3ff339a)
    log_asked: float = 1.5  # ...in a request that asks for history; inherited, no figure recorded (3ff339a)
    changelog_factor: float = 0.8  # a changelog (a log edited on purpose); dev files@5 0.489 -> 0.494 (7f91073)
    named_min_strength: float = 2.0  # = terms.key_ident: a file the request spells like code keeps its full weight
    # whatever its role; terms.key_ngram instead cost semble 0.006 (f9bae70)
    in_play_full_weight: bool = True  # files in play keep their full weight whatever their role; dev sessions files@5
    # 0.540 -> 0.557 (3c1347b; off: section "Files in play keep their full weight")


@dataclass(frozen=True)
class LongQuery:
    """long_query.py: a long, report-shaped request (a pasted issue) weighs what it writes as code most.
    Figures: bench/bugs (104 issues, Acc@1 / Acc@5 / fn@5), 0.570 / 0.855 / 0.554 with these values (the last
    two, delegates and text_first, held out: the same; docs/benchmarks.md#bug-reports); beside a value: the set it was chosen on (60, 66, 88 or 104)."""

    min_words: int = 60  # this many words or more, something written as code: a report (0: never); 100:
    # 0.390 / 0.758 / 0.421; 40: 0.452 / 0.779 (serde alone) but more session prompts reach the stage
    scrub: bool = True  # another machine's path prefixes and the numbers leave the request; with the
    # weights below: Acc@5 0.714 -> 0.758 (pydantic 0.375 -> 0.75)
    template: bool = True  # the lines a report kept from the project's issue template leave it; off:
    # 0.429 / 0.758 / 0.478 (pydantic's template put version.py first in 6 of its 8 issues)
    code_ident: float = 2.0  # a code-shaped word written as code or quoted: its rarity weight times this;
    # 1.0: fn@5 -0.009
    code_word: float = 1.0  # another word written as code (a fenced block, `inline`, a traceback); no figure
    quoted: float = 1.0  # a word of a quoted span of the prose ("requires an argument"); no figure either
    prose: float = 0.5  # a word of the prose only; 1.0 and 0.3 tie on bench/bugs
    defines: float = 0.3  # fusion.defines times this: a report names many definitions, each a weaker
    # pointer; 1.0: Acc@1 0.452 -> 0.372 (chosen in every fold)
    name: float = 1.0  # the name channel's weight times this; 0.5: Acc@1 -0.008
    text: float = 2.0  # the text channel's weight (whole-file BM25 of the reweighed terms) times this;
    # 1.0: 0.429 / 0.742
    chunk: float = 2.0  # the declarations channel's weight times this; 1.0: Acc@1 0.429
    graph: float = 1.0  # the graph walk's weight times this; 0 and 0.5 tie on bench/bugs
    title_names: float = 1.5  # the name keys and symbols of the report's first line (its title): their strength
    # times this; bench/bugs (66): 1.0 -> 1.5 Acc@5 0.838 -> 0.846 (pydantic 0.88 -> 1.0, `BaseModel.construct`),
    # no other repository moves, so held out it cannot show (0.838); 2.0: Acc@1 0.514 (rich up, pydantic down)
    frames_traced: bool = True  # the files of a report's stack leave the mention channels (the trace channel
    # ranks them, innermost first; a frame is no path the reporter chose to name): bench/bugs (66) Acc@1 0.507 ->
    # 0.516 (werkzeug#995: the callee of the innermost frame's line was fixed, not the frame), no other repository moves
    boilerplate: bool = True  # checklist lines and pasted environment blocks (`pydantic version: 1.8.2`,
    # show_versions() output) leave the report (long_query.without_boilerplate); off: pydantic Acc@1 0.50 -> 0.38,
    # Acc@5 0.88 -> 0.75 (version.py was named by them), every other repository the same (bench/bugs, 66 cases); the
    # mention channels read the report without them too (conan#4371: a checklist's link to CONTRIBUTING.md was first)
    forms: bool = True  # with `boilerplate`: an issue form's answers are such settings too (`### OS`, a blank
    # line, `macOS 12.6.8`: GitHub's forms print each answer under its heading); pip#12166: platformdirs' `MacOS`
    file_exts: bool = True  # a file name's extension (`requirements.txt` -> txt) weighs as prose, not as code,
    # unless the report also writes it as a word (long_query.file_extensions)
    stubs: float = 0.5  # a type stub's (`.pyi`: typeshed's, a package's own) final score times this, unless the
    # report names it: it declares what the report's code does, the code is elsewhere (mypy#21152: pdb.pyi first)
    foreign_frames: bool = True  # the frames of a report's stack that are no file of the project leave its words
    # (long_query.without_foreign_frames): another project's traceback, the standard library
    code_names: float = 3.0  # a one-word string of the report's code that is a class's or function's name
    # (`reader="nrrdreader"`) weighs this much more and keys that name as code does (query._code_names)
    named_source: bool = True  # of the files a report names, only source files keep their full weight (a
    # test, or a doc named like a function, is weighed by its role; a doc or config given by its path or tool
    # keeps it: session prompts name their targets); off (66): 0.475 / 0.787 / 0.533 (rich, gin: the named test
    # first; trpc: a doc named like the function)
    repeats: float = 0.25  # a report's term written n times weighs 1 + this * ln(n) times more (flat BM25 counts
    # a query's repeats; cairn read each term once): bench/bugs (88) Acc@5 0.784 -> 0.808 (conan#15949 `restore`,
    # 9th -> 3rd; mypy#21152 10th -> 5th), Acc@1 and fn@5 the same, no repository loses; held out (0, 0.1, 0.15,
    # 0.25, 0.35) 0.471 / 0.800 / 0.508; 0.5: moto Acc@5 -0.111, click Acc@1 -0.125
    delegates: float = 1.05  # a named wrapper's callee (`conan_api.cache.restore(`: delegates.py) scores this share
    # of it; bench/bugs 0.506 / 0.833 / 0.522 -> 0.540 / 0.855 / 0.548 (conan, dvc, click), held out the same
    text_first: int = 2  # the text's first above a first hit ranked worse there (content_first.py); Acc@1 +0.030
    tests_tested: bool = True  # a test file a report names: out of the mention channels, the code it tests first
    # in `tested` (bug_evidence.py); ties on bench/bugs, needed when a report gives the test's path (test_bug_long)


@dataclass(frozen=True)
class Terms:
    """query.py: a request term's weight from its rarity and shape, and the strength of its name keys."""

    common_share: float = 0.25  # a term in more than this share of files is common; inherited, no figure recorded
    common_factor: float = 0.25  # ...and counts this much; inherited, no figure recorded (9cc0a81)
    floor: float = 0.3  # the weight of the commonest word that still counts; inherited, no figure recorded
    span: float = 1.7  # ...plus this times its normalised IDF (0..1); inherited, no figure recorded
    identifier_factor: float = 1.5  # a code-shaped word counts this much more; inherited, no figure recorded
    key_ident: float = 2.0  # name key of a code-shaped token (applyCoupon, cart.py); eaca997, no figure recorded
    key_ngram: float = 1.0  # ...of plain words that join into a name ("apply coupon"); eaca997, no figure recorded
    key_word: float = 0.35  # ...of one plain word that is also a name ("use", "text"), times its rarity (6e32760);
    # no figure recorded
    key_named: float = 1.0  # ...of a plain word that is the whole request ("plugins") or is called a file ("the
    # config file"): it names the file as joined words do (issue 35 item 13); dev sessions hit@1 cc-backend
    # 0.650 -> 0.675 ("...if the option is not set in the config file?" -> config.go), other sets unchanged
    sym_bare: float = 1.0  # the whole request is one name (`Conn`); abe5b9f, no figure recorded
    sym_code: float = 0.6  # a code-shaped token in a sentence (`Ecto.Schema`); abe5b9f, no figure recorded
    sym_capital: float = 0.35  # a capitalised word in a sentence ("the Session"); abe5b9f, no figure recorded
    sym_first: float = 0.2  # a capitalised first word; abe5b9f, no figure recorded
    sym_word: float = 0.1  # a plain word a definition may carry; 0: semble and cases unchanged ("What did it")
    long: LongQuery = field(default_factory=LongQuery)  # the long-request stage (long_query.py)
    abbreviations: bool = True  # also search the short forms of long ones ("openid connect" -> oidc); cases hit@1
    # 0.467 -> 0.492, semble 0.879 -> 0.880 (a41522d; off: `{"terms.abbreviations": false}`)


@dataclass(frozen=True)
class Names:
    """names.py: the name channel and "definitions first"."""

    max_places: int = 40  # a key defined in more places is too generic to be a name hit; no figure recorded (9cc0a81)
    min_score: float = 0.5  # below this a file was named by plain words only; 0: cases files@5 0.772 -> 0.747
    # ("Design choices, measured")
    file_named: float = 1.5  # a file whose stem is the key, against a symbol of that name; no figure recorded
    word_key: float = 0.35  # = terms.key_word: a key this strong or weaker is one plain word of a sentence
    word_again: float = 0.0  # ...and a file both named after it and defining it (blocks.go, `Blocks`) counts the
    # lesser of the two this much: 1 (the sum) put an unrelated blocks.go first on terraform (issue 35 item 13);
    # 0, 0.5 and 1 equal on commit subjects, semble, decisions; dev sessions (first 40 a repository) files@5 /
    # novel@5 0.507 / 0.462 -> 0.514 / 0.470 with 0 (oh-my-posh 0.239 -> 0.266), 0.5 as 1. A file named after
    # it counting 0.5 of file_named instead: semble lazy.nvim -0.016 (not kept)
    nested_symbol: float = 0.8  # a symbol that is not top-level, in the name channel; no figure recorded
    kind_weight: tuple[tuple[str, float], ...] = (  # what a definition of this kind says about the file; no figure
        ("class", 1.0),
        ("interface", 1.0),
        ("type", 1.0),
        ("enum", 1.0),
        ("module", 1.0),
        ("struct", 1.0),  # recorded
        ("trait", 1.0),
        ("protocol", 1.0),
        ("object", 1.0),
        ("function", 0.7),
        ("method", 0.6),
        ("macro", 0.7),
        ("constant", 0.4),
        ("variable", 0.3),
        ("field", 0.3),
        ("impl", 0.3),
    )
    other_kind: float = 0.5  # a definition of another kind; abe5b9f, no figure recorded
    nested: float = 0.6  # a member of something else (a method, an inner class); abe5b9f, no figure recorded
    other_case: float = 0.6  # `session` when the request wrote `Session`; abe5b9f, no figure recorded
    qualified_match: float = 1.2  # `defmodule Plug.Conn` when the request wrote `Plug.Conn`; no figure recorded
    named_file: float = 1.5  # the defining file is named after the symbol (sessions.py); no figure recorded
    named_part: float = 1.2  # ...or its name starts with it (SqlMapper.CacheInfo.cs); no figure recorded
    deeper: float = 0.9  # per folder level below the shallowest definer; 1.0: semble 0.881 -> 0.880, symbol
    # 0.988 -> 0.979 ("What did it")


@dataclass(frozen=True)
class Paths:
    """paths.py: request words in file and folder names."""

    stem_part: float = 1.0  # a match in the file's own name; 474bc98, no figure recorded
    dir_part: float = 0.4  # a match in its folder's name; 474bc98, no figure recorded
    partial: float = 0.5  # a name the request covers in part counts this much of a covered one (171a588);
    # no figure recorded
    cover_power: float = 1.0  # how fast coverage pays; 171a588, no figure recorded


@dataclass(frozen=True)
class Text:
    """text.py and chunks.py: BM25 over whole files and over declarations."""

    max_terms: int = 12  # the most informative terms of a long request are searched; no figure recorded
    per_term_limit: int = 300  # best rows per term; inherited, no figure recorded (9cc0a81)
    file_columns: str = "3.0, 2.0, 1.0"  # files_fts column weights: path, names, body; no figure recorded
    keep_tf_only: bool = True  # FTS5's clamped IDF divided out (term weights say how rare a word is); off:
    # semble 0.881 -> 0.877, cases files@5 0.784 -> 0.809 ("What did it"; kept: test_ranking.py pins why)
    chunk_k1: float = 1.2  # BM25-style saturation of a declaration's term counts; no figure recorded (bbf8df7)
    chunk_spread: float = 0.3  # how much a file's other matching declarations add to its best one; 0: semble
    # 0.881 -> 0.877, cases files@5 0.784 -> 0.769 ("What did it")


@dataclass(frozen=True)
class Graph:
    """graph_walk.py: Personalized PageRank by local push from the best hits."""

    alpha: float = 0.2  # restart probability: higher keeps the walk near the seeds; inherited, no figure recorded
    eps: float = 1e-3  # residual below which a node does not push; no figure recorded (d0298ac)
    degree_share: float = 0.25  # ...and, once its degree is known, below eps * degree * this (d0298ac); no figure
    max_pushes: int = 4000  # the walk's budget; inherited, no figure recorded (9cc0a81)
    hubs_pass_rank: bool = False  # hubs keep what they receive; on: cases files@5 0.772 -> 0.791 on subjects but
    # 0.732 -> 0.729 on chatty ones, kept off for vague requests ("Design choices, measured")


@dataclass(frozen=True)
class Semantic:
    """semantic.py: files close in meaning (only when the index holds vectors)."""

    file_share: float = 0.5  # a file's own vector beside its best chunk; no figure recorded (0c88fd8)
    depth: int = 300  # files returned, best first; 100 cost semble 0.004-0.009 (7665ca2)
    explained: int = 20  # of them, the best whose closest chunk gives the lines a hit shows; no figure recorded
    said: int = 20  # hits among the channel's best this many say "close in meaning"; no figure recorded (7665ca2)
    min_words: int = 2  # a request of fewer words has too little meaning to embed; no figure recorded


@dataclass(frozen=True)
class Session:
    """session_signals.py: what the session so far says (files in play, earlier prompts, mentions)."""

    recent_decay: float = 0.6  # a touch one prompt older counts this much; inherited, no figure recorded (3ff339a)
    how_weight: tuple[tuple[str, float], ...] = (  # a file edited, created, read or only named by a search;
        ("edited", 1.0),
        ("created", 1.0),
        ("read", 0.6),
        ("named", 0.2),
    )  # no figure recorded (3ff339a)
    touch_count: float = 0.01  # each repeated touch (up to 10) adds this share; inherited, no figure recorded
    max_seeds: int = 24  # files in play that seed the graph walk; inherited, no figure recorded
    topic_prompts: int = 3  # earlier prompts whose words carry over; inherited, no figure recorded (3ff339a)
    topic_share: float = 0.35  # the previous prompt's words against the current one's; no figure recorded (3ff339a)
    topic_decay: float = 0.6  # each older prompt's words count this much of the next one's; no figure recorded
    topic_min_weight: float = 1.0  # only distinctive words carry over; inherited, no figure recorded (3ff339a)
    topic_terms: int = 12  # earlier words kept, the heaviest first; inherited, no figure recorded
    mention_path: float = 1.0  # a path the prompt gives (fusion.path_mention decides the list); 84496d0
    mention_name: float = 0.8  # a unique bare file name the prompt gives; inherited, no figure recorded
    mention_variant: float = 0.6  # ...given in the other number (`nodes.go` for node.go); no figure recorded
    mention_item: float = 0.9  # a tracker item's file that has the item's word or key in its path; no figure recorded
    mention_item_loose: float = 0.5  # ...one that has only its number (two digits or more); no figure recorded
    near_graph: float = 0.5  # an import neighbour of a file in play, against a file in its folder (0: off); c3f178b,
    # no figure recorded
    counterpart_share: float = 0.3  # a file's test (or tested file) beside it; no figure recorded (26c6de4)
    counterpart_asked: float = 1.0  # ...when the prompt asks about tests; no figure recorded (26c6de4)
    counterpart_away: float = 0.3  # a counterpart in another folder, shared over how many there are (0c0b735);
    # no figure recorded
    past_min_sim: float = 0.1  # an earlier request at least this like the prompt lends its files
    # (sessions/history_recall.py): a request sharing one rare word is often enough about the same files.
    # docs/benchmarks-log/2026-12-07.md#log-session-history: macro novel@5 0.3 0.477 (with the old in-play weights), 0.2 0.483,
    # 0.15 0.490, 0.1 0.496, 0.05 0.493 (cc-backend -0.008)
    past_requests: int = 20  # the most alike earlier requests that lend their files; 50: the same figures
    past_power: float = 2.0  # a request's share grows as its similarity to this power; 1.0: macro novel@5 -0.001
    past_read: float = 0.6  # a file a request only read, against one it edited; 0.3 and 1.0: every repository
    # within 0.001 (an earlier run, benchmarks-log/2026-12-07.md)
    past_half_life: float = 200.0  # sessions: a request this many sessions older counts half (the benchmark's
    # sessions share one clock and are archived at once, so no figure can choose it)
    past_per_seed: int = 40  # earlier sessions of a file in play walked for co-access, the newest first


@dataclass(frozen=True)
class Phrases:
    """phrases.py: runs of the request's words that a few files hold verbatim."""

    gram: int = 3  # words per phrase; 443bf28, no figure recorded
    stop_in_gram: int = 0  # function words a trigram may hold: 1 costs ~8x the time (3.3 ms against 0.4 on
    # terraform) for +0.003 files@5 on the dev sessions (443bf28)
    max_grams: int = 48  # trigrams looked up per request, those of the longest words first; no figure recorded
    max_files: int = 4  # a phrase held by more files is common; dev sessions files@5 0.495 -> 0.508 with it (443bf28)
    pasted_min_words: int = 12  # a shorter request's trigrams are its own wording: semble and cases unchanged (443bf28)
    quoted_words: tuple[int, int] = (2, 8)  # a quoted span of this many words is a phrase whatever the length;
    # dev sessions files@5 0.508 -> 0.513, hit@1 0.447 -> 0.457 (5fa3b2d)
    max_quoted: int = 6  # quoted spans looked up; no figure recorded (5fa3b2d)


@dataclass(frozen=True)
class Tooling:
    """tooling.py: the configuration files of the tools a request names (their strengths are its table's)."""

    max_files: int = 12  # of one tool's files, the shallowest first (a monorepo's twenty workflows say little
    # each); no figure recorded (1097113)
    depth_discount: float = 0.05  # per folder level (up to 5), so the shallower of equals comes first; no figure


@dataclass(frozen=True)
class Bugs:
    """bug_evidence.py: how a pasted report's frames, messages and failing tests count."""

    frame_decay: float = 0.7  # each project file further from the innermost, this much of the one before (no figure)
    keep: float = 0.8  # stack files under this share of the innermost one's weight leave; 0.5: hono Acc@5 0.75 -> 0.50
    name_only: float = 0.4  # a frame matched by its file name alone, among several files of that name
    test_frame: float = 0.5  # a frame in a test file (the test is rarely what the fix changes)
    max_holders: int = 4  # a message phrase held by more files is no evidence of where it is raised
    max_phrases: int = 6  # message phrases looked up per request
    test_file: float = 0.4  # a failing test's own file, against the file it exercises (1.0)
    module_decay: float = 0.8  # each further module a report names counts this much of the one before
    away: float = 0.3  # = session.counterpart_away: a tested file in another folder, shared over their number
    callee: float = 0.0  # a long report's stack cut at a project frame: what its last line calls, this share of the
    # stack's best file (delegates.frame_callee); 1.05: MONAI Acc@1 0.75 -> 0.833 alone (LOO cannot show it): off


@dataclass(frozen=True)
class FunctionRank:
    """functions.py: for a long, report-shaped request, the definitions of each of the best hits by the
    report's evidence, those with evidence listed first. bench/bugs fn@5 0.424 (off) -> 0.496 (60 cases); each
    weight below moved by fn@5 leave-one-repository-out stays within 0.03 of these, held out 0.482 (0.491 for
    these then); 104 cases now: 0.522 (docs/benchmarks.md#bug-reports)."""

    files: int = 5  # the best hits whose definitions are re-ranked (0: off); 10 ties
    frame: float = 3.0  # the function of a stack frame or of the line raising the report's message; no figure
    named: float = 2.0  # times the strength the report names a definition with (query.Symbol.strength); 0.5:
    # +0.004, 1 and 4 tie
    body: float = 1.0  # times the share of the report's term weight found in an innermost function's lines;
    # 0 ties, 2: +0.018, 3: -0.045
    least: float = 0.3  # a definition with less evidence keeps its place after those with more; 0.1: +0.018
    max_first: int = 3  # definitions moved to the front of a hit; 1: +0.024, 5 ties
    shown: int = 3  # a report's hit lists at most this many definitions (0: all), as many as the text
    # output shows (render.MAX_SNIPPETS), so the next hit's come next; bench/bugs (66) fn@5 0.523 (all) -> 0.548
    # (held out 0.548; hono, marshmallow, werkzeug up, attrs 0.60 -> 0.40: its changed function was 4th-7th); 2: 0.521


@dataclass(frozen=True)
class Knowledge:
    """knowledge.py: decisions, bugs and notes beside the code."""

    superseded_factor: float = 0.05  # a superseded node stays readable, never ahead of a live one; no figure recorded
    why_factor: float = 1.5  # a why-question wants the decision or bug record first; no figure recorded (ed053e2)
    share: float = 0.25  # in the `all` view, at least this share of slots goes to knowledge; no figure recorded
    # The weights below were chosen leave-one-repository-out on the decisions set (../shared/bench/decisions,
    # bench/decisions_eval.py --loo: picked on five repositories, scored on the sixth; the per-round tables:
    # docs/benchmarks-log/2026-12-07.md#log-decisions).
    record_channel: float = 2.0  # the record channel (records.py: records ranked among themselves) in a knowledge
    # hit's score; picked over 0 / 0.5 / 1 in every fold: default hit@1 0.791 -> 0.804, --kind knowledge 0.857 -> 0.876
    record_fused: float = 0.0  # ...and the fused ranking of every file (its text, names, walk) in it; 0 picked over
    # 0.02 / 0.05 / 0.1 in every fold on nine repositories (with record_idf_plus and record_title; the record channel's
    # places are 1/61 - 1/62 apart, so any share of the fused ranking reorders near-ties): default hit@1 0.861 ->
    # 0.879, --kind knowledge 0.906 -> 0.924, no repository lower on hit@1 (crossplane files@5 0.960 -> 0.920: a
    # record it does not recognise fell from 5th to 6th); on six, before those: 0.05 in 3 of 6 folds
    record_fused_unplaced: float = 1e-4  # ...for a node the record channel did not place (no word of the request in
    # it, found by meaning: tests/search/test_semantic.py's paraphrase), so that those are ordered by the fused ranking
    # and still come after every placed node (1e-4 x a fused score under 0.25 stays below the last place's 2/(61+N)
    # for N under 20,000 nodes); with record_fused 0 they fell back to path order
    record_columns: str = "5.0, 3.0, 1.0"  # records_fts column weights: title, path words, body; picked over
    # 3,2,1 and 8,4,1 in every fold
    record_rarity: float = 0.0  # the record channel's term weight is cairn's (repository-wide) weight to this power:
    # 0 = every word alike, the records' own IDF decides; picked over 0.5 and 1 in every fold
    record_idf_plus: bool = True  # the record channel's IDF is ln(1 + (N - n + .5) / (n + .5)), not FTS5's (0 for a
    # word in half the records or more: "bus" in 11 of openedx-events' 18 event-bus ADRs); with record_title 1, picked
    # in every fold on nine repositories (bench/decisions_extra too): default hit@1 0.802 -> 0.862, files@5 0.919 ->
    # 0.946 held out; --kind knowledge 0.838 -> 0.902 (openedx-events 0.769 -> 0.923); no repository lower
    record_title: float = 1.0  # a request word in a record's title or path adds this times its IDF, whatever the
    # record's length (FTS5's BM25 divides a title hit by the whole row's length); 0.5 / 2 / 0 (alone: 0.852) below 1
    record_idf_repo: float = 0.0  # that IDF mixed with the word's IDF among every file of the repository at this share;
    # 1 was picked in 7 of 9 default folds but held out no better (0.878 against 0.879) and openedx-events fell 0.923 ->
    # 0.885 (its 18 ADRs share the repository's common words); --kind knowledge picked 0 in 8 of 9 folds
    record_expansion: float = 0.5  # related words (abbreviations, --terms) in the record channel; no figure recorded
    first_title: float = 0.5  # `auto` puts the best record first when its title and path hold this share of the
    # request's words (weighted; records.evidence); 0.4 ties, 0.6 -0.006, never (9) -0.031 hit@1
    first_plain: float = 1.0  # ...or its plain BM25 over the whole repository is this times the best other file's;
    # 0.8 was picked in every fold (+0.024) but put records before code on 1 of 30 vector commit subjects
    # (/work/runs/records/codecases: vector code hit@1 0.233 -> 0.200), so 1.0 is kept; 1.2: -0.072
    first_cover: float = -0.05  # ...and it holds at least this much more of the request than the best code hits;
    # picked over 0 / 0.05 in every fold (+0.018 hit@1), code subjects unchanged
    first_reason_cover: float = 0.0  # ...or, for a why-question, this much more; picked over 0.1 / never in every fold
    cover_hits: int = 3  # the code hits a record's coverage is compared with; no figure recorded
    runner_up_place: int = 3  # with the best record first, the next record goes at this place (0: by score), unless
    # the request is a code task; 0: files@5 0.925 -> 0.856, 2 ties (MRR +0.012, code MRR -0.006)
    runner_up_after_second: int = 4  # with the best record second, the next record at this place for a question
    # (a "...?" or a request naming a record kind; knowledge.arrange), and
    floor_place: int = 5  # with no evidence for it, the best record still at this place for one: both picked over
    # 0 / 4 / 5 in every fold on nine repositories, default files@5 0.954 -> 0.975, hit@1 0.879 -> 0.883; the code
    # subjects of those repositories unchanged (files@5 0.624; for any request, not questions alone: 0.603)
    second_plain: float = 0.8  # second (after the best code hit) at these levels; none of them: files@5 0.957 -> 0.922
    second_title: float = 0.3  # (hit@1 the same); second_cover 0 or 0.2: no change
    second_cover: float = 0.1
    personal_columns: str = "0, 3.0, 1.0"  # personal notes' FTS column weights (path, title, body); no figure
    personal_min_weight: float = 1.0  # every request word counts for personal notes (the code's rarity would
    # silence words it never uses); no figure recorded
    personal_min_expansion: float = 0.5  # ...and every related word this much; no figure recorded


@dataclass(frozen=True)
class Ranking:
    """Every weight and switch of search (see the module docstring). Build variants with `replace`."""

    fusion: Fusion = field(default_factory=Fusion)
    roles: Roles = field(default_factory=Roles)
    terms: Terms = field(default_factory=Terms)
    names: Names = field(default_factory=Names)
    paths: Paths = field(default_factory=Paths)
    text: Text = field(default_factory=Text)
    graph: Graph = field(default_factory=Graph)
    semantic: Semantic = field(default_factory=Semantic)
    session: Session = field(default_factory=Session)
    phrases: Phrases = field(default_factory=Phrases)
    tooling: Tooling = field(default_factory=Tooling)
    knowledge: Knowledge = field(default_factory=Knowledge)
    bugs: Bugs = field(default_factory=Bugs)
    functions: FunctionRank = field(default_factory=FunctionRank)


DEFAULT_RANKING = Ranking()


def override(ranking: Ranking, changes: dict[str, Any]) -> Ranking:
    """`ranking` with dotted fields replaced: {"fusion.name": 0, "roles.code_intent.test": 1.0,
    "roles.doc_intent": {"prose": 1.0}, "names.kind_weight": {"class": 1.0, ...}}. An unknown
    name raises KeyError (a typo must not measure the shipped ranking)."""
    for key, value in changes.items():
        ranking = _set(ranking, key.split("."), value, key)
    return ranking


def _set(obj: Any, path: list[str], value: Any, key: str) -> Any:
    names = {f.name for f in fields(obj)}
    if path[0] not in names:
        raise KeyError(f"{key}: {type(obj).__name__} has no field {path[0]!r} (it has {', '.join(sorted(names))})")
    current = getattr(obj, path[0])
    if len(path) > 1:
        return replace(obj, **{path[0]: _set(current, path[1:], value, key)})
    if is_dataclass(current) and isinstance(value, dict):
        value = _set_all(current, value, key)
    elif isinstance(current, tuple) and isinstance(value, dict):
        value = tuple({**dict(current), **value}.items())
    elif isinstance(current, tuple) and isinstance(value, list):
        value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
    return replace(obj, **{path[0]: value})


def _set_all(obj: Any, values: dict[str, Any], key: str) -> Any:
    for name, v in values.items():
        obj = _set(obj, [name], v, f"{key}.{name}")
    return obj

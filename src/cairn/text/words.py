"""Stop words and the plural fold, one copy each: which words carry no topic, and "retries" = "retry".

Three uses, one vocabulary, built from three disjoint parts:

- `FUNCTION_WORDS`: English articles, pronouns, auxiliaries, prepositions, conjunctions.
- `REQUEST_WORDS`: what a person says around a request ("please", "fix", "show", "new").
- `CHAT_WORDS`: what every conversation about code says ("error", "file", "test", "output").

`STOPWORDS` (function + request words) is what a search request drops (`text/tokens.query_terms`,
`search/query.py`); `TOPIC_STOPWORDS` (all three, plurals folded) is what the session archive
never takes for a session's topic; duplicate detection of notes (`memory/similar.py`) drops only
the function words, so "Fix the retry" and "Add the retry" stay two titles. Stdlib only.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION_WORDS = _words("""
a an the and or but if then else of to in on at by for with from into onto over under about as
is are was were be been being am do does did done doing have has had having it its it's this that
these those there here what which who whom whose when where why how all any each every some no not
only own same so than too very can could should would will shall may might must just also now
i me my we our you your he him his she her they them their us
while more most less instead without within between after before since until via per etc e g ie eg
""")

REQUEST_WORDS = _words("""
let lets please ok okay hey hi thanks thank yes yeah sure want wanted need needs needed make made
get got use used using like still again really maybe something anything thing things stuff way
look see find show tell know think try trying work working one two new add added adds fix fixed
fixes fixing update updated support allow allows
""")

CHAT_WORDS = _words("""
above actually adding against although always among another answer appears approach around asked
available away back based because below better both build built call called calls cannot case change
changed changes check checked checking clear code come comes command complete completed confirm
contains content context create created current currently data default described details didn doesn
down during either empty ensure error errors even everything example exist exists expected explain
false file file_path files fine first follow following found full function functions further gets
give given going good great handle happen hello however issue keep last later latest least left
likely line lines list little looking looks main makes making many mean much name never next none
note nothing null once open other others output part pass passes path point possible probably
problem proper properly provide question quite rather read ready reason result results return
returns right run running runs said says seems sense session sessions shows similar simple specific
start started state such take test tests text though through time together tool true turn type
understand unless upon useful user uses usually value wants well whether works wrong yours
""")

STOPWORDS = FUNCTION_WORDS | REQUEST_WORDS


def singular(word: str) -> str:
    """A light plural fold so "retries" and "retry" count as one word (not a full stemmer)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_ALL = STOPWORDS | CHAT_WORDS
TOPIC_STOPWORDS = _ALL | frozenset(singular(w) for w in _ALL)

"""A SQL statement the grammar lacks no longer takes the rest of the file with it (pgvector, issue 35)."""

from __future__ import annotations

from cairn.codemap.parse import parse_source
from cairn.codemap.sql_statements import statement_spans

CAST = b"CREATE CAST (vector AS real[])\n\tWITH FUNCTION vector_to_float4(vector, integer, boolean) AS IMPLICIT;\n\n"
OPERATOR = (
    b"CREATE OPERATOR <-> (\n\tLEFTARG = vector, RIGHTARG = vector, PROCEDURE = l2_distance,\n"
    b"\tCOMMUTATOR = '<->'\n);\n\n"
)


def fn(name: str) -> bytes:
    return (
        f"CREATE FUNCTION {name}(vector) RETURNS vector\n"
        "\tAS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;\n\n"
    ).encode()


def test_functions_after_a_cast_are_read() -> None:
    """pgvector's sql/vector.sql gave 36 of its 114 functions: none after its first CREATE CAST."""
    src = fn("vector_in") + CAST + CAST + OPERATOR + fn("l2_distance") + b"CREATE TABLE items (id int);\n"
    parsed = parse_source("sql", src)
    assert [(d.name, d.kind, d.line) for d in parsed.defs] == [
        ("vector_in", "function", 1),
        ("l2_distance", "function", 15),
        ("items", "table", 18),
    ]


def test_a_statement_read_in_part_is_kept() -> None:
    """A plpgsql body the grammar reads with errors still defines its function."""
    src = (
        b"CREATE OR REPLACE FUNCTION touch() RETURNS trigger AS $$\nBEGIN\n  NEW.updated := now();\n"
        b"  RETURN NEW;\nEND;\n$$ LANGUAGE plpgsql;\n" + CAST + b"CREATE TABLE logs (id int);\n"
    )
    assert [d.name for d in parse_source("sql", src).defs] == ["touch", "logs"]


def test_statements_split_outside_quotes_bodies_and_comments() -> None:
    src = (
        b"CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql; "
        b"/* a; /* nested; */ still; */ SELECT 'it''s;'; SELECT \"a;b\" FROM t; -- x; y\nSELECT $1, x$y;\ntail"
    )
    assert [src[a:b].strip() for a, b in statement_spans(src)] == [
        b"CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;",
        b"/* a; /* nested; */ still; */ SELECT 'it''s;';",
        b'SELECT "a;b" FROM t;',
        b"-- x; y\nSELECT $1, x$y;",
        b"tail",
    ]

"""Files without a grammar still name things: declaration lines become definitions and chunks."""

from __future__ import annotations

from cairn.codemap.extract import extract_file
from cairn.codemap.textdefs import _candidates, _match, flat_spans, is_program, text_definitions
from helpers import write_tree

ELIXIR = '''defmodule Plug.Conn do
  @moduledoc """
  The connection.

  type of the thing, def not_a_def
  """
  defstruct adapter: nil, halted: false

  def halt(%Conn{} = conn) do
    %{conn | halted: true}
  end

  defp put_private(conn, key, value), do: conn

  defmodule NotSentError do
    defexception message: "not sent"
  end
end
'''

BASH = """#!/usr/bin/env bash
load() {
  source "$1"
}

run() { # captures output and status
  output="$("$@")"
}

function skip {
  exit 0
}
"""

LUA = """local M = {}

function M.load(plugins)
  for _, p in ipairs(plugins) do
    local function done() end
  end
end

M.setup = function(opts)
  return opts
end

return M
"""

HASKELL = """module Data.Aeson.Types.FromJSON
    ( FromJSON(..)
    ) where

class FromJSON a where
    parseJSON :: Value -> Parser a

(.:?) :: FromJSON a => Object -> Key -> Parser (Maybe a)
(.:?) = explicitParseFieldMaybe parseJSON

data Options = Options { fieldLabelModifier :: String -> String }

instance FromJSON Bool where
    parseJSON = withBool "Bool" pure
"""

ZIG = """const std = @import("std");

pub const Names = struct {
    short: ?u8 = null,

    pub fn longest(names: *const Names) Longest {
        return .{};
    }
};

pub fn parse(comptime Id: type, params: []const Id) !void {}
"""


def _names(text: str) -> dict[str, tuple[str, bool]]:
    return {d.name: (d.kind, d.top_level) for d in text_definitions(text)}


def test_elixir_modules_and_functions_nested_with_heredoc_prose_skipped():
    defs = _names(ELIXIR)
    assert defs["Plug.Conn"] == ("module", True)
    assert defs["halt"] == ("function", False) and defs["put_private"] == ("function", False)
    assert defs["NotSentError"] == ("module", False)
    assert "not_a_def" not in defs and "of" not in defs  # inside the @moduledoc heredoc
    assert "adapter" not in defs  # defstruct names the enclosing module, not a field


def test_shell_lua_haskell_zig_declarations():
    assert {"load", "run", "skip"} <= set(_names(BASH))
    lua = _names(LUA)
    assert lua["M.load"] == ("function", True) and lua["M.setup"] == ("function", True)
    assert lua["done"][1] is False
    hs = _names(HASKELL)
    assert hs["Data.Aeson.Types.FromJSON"][0] == "module"
    pairs = [(d.name, d.kind) for d in text_definitions(HASKELL)]
    assert ("FromJSON", "class") in pairs
    assert ("FromJSON", "impl") in pairs  # `instance FromJSON Bool` implements the class, it does not define it
    assert hs[".:?"] == ("function", True)  # an operator, as its signature declares it
    assert hs["Options"][0] == "type"
    zig = _names(ZIG)
    assert zig["Names"] == ("class", True) and zig["longest"] == ("function", False)
    assert zig["parse"] == ("function", True) and zig["std"][0] == "constant"


def test_line_ranges_close_at_the_next_peer_and_flat_spans_never_nest():
    defs = text_definitions(ELIXIR)
    by = {d.name: d for d in defs}
    assert by["Plug.Conn"].line == 1 and by["Plug.Conn"].end_line >= by["NotSentError"].line
    assert by["halt"].end_line == by["put_private"].line - 1
    spans = flat_spans(defs)
    for (a, a_end), (b, _) in zip(spans, spans[1:], strict=False):
        assert a.line <= a_end < b.line


OTHERS = """CREATE OR REPLACE VIEW active_users AS SELECT 1;
(defn parse-args [args] args)
  pub(crate) async fn serve(
export
  function split() {}
cleanup() { # trailing comment
}
log <- function(x) x
"""


def test_declaration_lines_found_in_the_whole_text_are_those_read_line_by_line():
    """Without a heredoc the candidate lines come from one search of the whole text (a superset of the
    lines `_match` takes, each still decided by it): the same lines, in order, for every pattern kind."""
    for text in (BASH + LUA + HASKELL + ZIG + OTHERS, ELIXIR):
        lines = text.split("\n")
        declared = [(i, line) for i, line in enumerate(lines, 1) if line.strip() and _match(line)]
        found = list(_candidates(text, lines))
        assert len(found) < len([line for line in lines if line.strip()])  # not every line is read
        if '"""' not in text:
            assert [c for c in found if _match(c[1])] == declared
    names = _names(OTHERS)
    assert {"active_users", "parse-args", "serve", "split", "cleanup", "log"} <= set(names)


def test_only_programs_are_scanned():
    assert is_program("elixir", "de") and is_program("shell", "#!")
    assert is_program(None, "#!") and not is_program(None, "ab")
    assert not is_program("json", "{") and not is_program("markdown", "# ") and not is_program("yaml", "a:")


def test_extract_gives_unparsed_languages_symbols_names_and_chunks(tmp_path):
    write_tree(tmp_path, {"lib/plug/conn.ex": ELIXIR, "bin/tool": BASH, "data.json": '{"def": "x"}'})
    rec = extract_file(str(tmp_path), "lib/plug/conn.ex", 0, 0)
    assert rec.parsed is not None and "Plug.Conn" in [d.name for d in rec.parsed.defs]
    assert "plugconn" in rec.fts_names.lower().replace(" ", "") or "Plug.Conn" in rec.fts_names
    assert rec.chunks and rec.chunks[0].name == "Plug.Conn"
    script = extract_file(str(tmp_path), "bin/tool", 0, 0)  # no extension, a shebang
    assert [d.name for d in script.parsed.defs] == ["load", "run", "skip"]
    data = extract_file(str(tmp_path), "data.json", 0, 0)
    assert data.parsed is None and not data.chunks

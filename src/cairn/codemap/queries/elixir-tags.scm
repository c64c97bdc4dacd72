; Elixir: modules and protocols, functions and macros (their clauses are merged later by name),
; protocol implementations as the scope of their functions, calls and module references.
; (Leaner than the grammar's own tags.scm, whose keyword-filter patterns tripled query time.)

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#any-of? @_kw "defmodule" "defprotocol")) @definition.module

(call
  target: (identifier) @_kw
  (arguments
    .
    [
      (identifier) @name
      (call target: (identifier) @name)
      (binary_operator left: (call target: (identifier) @name) operator: "when")
    ])
  (#any-of? @_kw "def" "defp" "defdelegate" "defguard" "defguardp" "defmacro" "defmacrop" "defn" "defnp")) @definition.function

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#eq? @_kw "defimpl")) @scope

(call target: (identifier) @name) @reference.call
; A remote call (`Map.get(x)`, `Conn.put_status(c)`) is a use of its module, counted by the alias
; below: its function name would tie every `Map.get` to a file defining a `get` of its own.
(alias) @name @reference.module

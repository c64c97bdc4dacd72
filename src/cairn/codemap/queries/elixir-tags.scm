; Elixir (supplements the grammar's tags.scm): a protocol implementation is the scope of its functions.

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#eq? @_kw "defimpl")) @scope

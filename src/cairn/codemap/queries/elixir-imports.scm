; alias / import / require / use Plug.Conn  (alias Plug.Conn.{A, B} is expanded by the resolver)
(call
  target: (identifier) @_kw
  (arguments . [(alias) (dot)] @import)
  (#any-of? @_kw "alias" "import" "require" "use"))

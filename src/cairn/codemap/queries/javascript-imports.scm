; import/export-from statements, require("x") and dynamic import("x"): js, ts and tsx.
(import_statement source: (string)) @import
(export_statement source: (string)) @import
((call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string))) @import
  (#eq? @_fn "require"))
(call_expression function: (import) arguments: (arguments . (string))) @import

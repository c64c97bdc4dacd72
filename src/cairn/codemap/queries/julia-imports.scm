; include("file.jl"); using / import of a module
(call_expression
  . (identifier) @_i
  (argument_list . (string_literal) @import)
  (#eq? @_i "include"))
(using_statement (identifier) @import)
(import_statement (identifier) @import)

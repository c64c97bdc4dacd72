(use_statement module: (package) @import)
(require_expression (bareword) @import)
(use_statement
  module: (package) @_m
  (string_literal (string_content) @import)
  (#any-of? @_m "parent" "base"))

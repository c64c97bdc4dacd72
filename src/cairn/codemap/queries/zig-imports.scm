(builtin_function
  (builtin_identifier) @_b
  (arguments . (string) @import)
  (#eq? @_b "@import"))

((call
  method: (identifier) @_m
  arguments: (argument_list . (string))) @import
  (#any-of? @_m "require" "require_relative"))

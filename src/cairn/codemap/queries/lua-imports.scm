; require("a.b") and require "a.b"
(function_call
  name: (identifier) @_r
  arguments: (arguments . (string content: (string_content) @import))
  (#eq? @_r "require"))

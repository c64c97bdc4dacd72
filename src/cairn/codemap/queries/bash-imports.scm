; source FILE, . FILE (also `\. FILE`, `\source FILE`: the backslash skips aliases), bats `load helper`
(command
  name: (command_name) @_c
  .
  argument: [(word) (string) (raw_string) (concatenation)] @import
  (#any-of? @_c "source" "." "\\." "\\source" "load" "load_lib"))

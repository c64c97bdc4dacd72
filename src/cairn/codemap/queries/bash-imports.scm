; source FILE, . FILE, bats `load helper`
(command
  name: (command_name) @_c
  .
  argument: [(word) (string) (raw_string) (concatenation)] @import
  (#any-of? @_c "source" "." "load" "load_lib"))

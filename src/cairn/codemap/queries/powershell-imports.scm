; dot-sourcing (. $PSScriptRoot\x.ps1) and Import-Module ./x.psm1
(command (command_invokation_operator) command_name: (command_name_expr) @import)
(command
  command_name: (command_name) @_c
  command_elements: (command_elements . (command_argument_sep)? . (generic_token) @import)
  (#any-of? @_c "Import-Module" "import-module" "ipmo"))

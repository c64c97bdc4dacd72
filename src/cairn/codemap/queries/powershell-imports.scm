; dot-sourcing (. $PSScriptRoot\x.ps1), a script run by the call operator (& "$PSScriptRoot\build.ps1";
; not & $SafeCommands['Where-Object'], a command in a variable) and Import-Module ./x.psm1
(command (command_invokation_operator) @_op command_name: (command_name_expr) @import (#eq? @_op "."))
(command (command_invokation_operator) @_op command_name: (command_name_expr) @import (#eq? @_op "&")
  (#match? @import "\\.ps[dm]?1"))
(command
  command_name: (command_name) @_c
  command_elements: (command_elements . (command_argument_sep)? . (generic_token) @import)
  (#any-of? @_c "Import-Module" "import-module" "ipmo"))

; Bash / sh / zsh / bats: functions, top-level variables, bats @test blocks, command calls.
(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)
(program
  (command
    name: (command_name (word) @_t)
    .
    argument: (string (string_content) @name)
    (#eq? @_t "@test")) @definition.function)

(command name: (command_name (word) @name)) @reference.call

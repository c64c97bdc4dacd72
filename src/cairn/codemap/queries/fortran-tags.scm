; Fortran: modules, programs, derived types, functions, subroutines, interfaces.
(module (module_statement (name) @name)) @definition.module
(program (program_statement (name) @name)) @definition.module
(derived_type_definition (derived_type_statement (type_name) @name)) @definition.type
(function (function_statement name: (name) @name)) @definition.function
(subroutine (subroutine_statement name: (name) @name)) @definition.function
(interface (interface_statement (name) @name)) @definition.interface

(call_expression (identifier) @name) @reference.call
(subroutine_call subroutine: (identifier) @name) @reference.call
(derived_type name: (type_name) @name) @reference.type
(use_statement (module_name) @name) @reference.module

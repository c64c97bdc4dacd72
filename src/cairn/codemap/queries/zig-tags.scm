; Zig: containers bound to constants, functions, top-level constants with literal values.
(variable_declaration (identifier) @name (struct_declaration)) @definition.struct
(variable_declaration (identifier) @name (enum_declaration)) @definition.enum
(variable_declaration (identifier) @name (union_declaration)) @definition.union
(variable_declaration (identifier) @name (opaque_declaration)) @definition.type
(variable_declaration (identifier) @name (error_set_declaration)) @definition.type
(function_declaration name: (identifier) @name) @definition.function
(source_file
  (variable_declaration
    .
    (identifier) @name
    [(integer) (float) (string) (multiline_string) (boolean)]) @definition.constant)

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression member: (identifier) @name)) @reference.call
(field_expression object: (identifier) @name) @reference.type

; cairn supplement shared by c and cpp: macros, calls and type names as references.

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call

(type_identifier) @name @reference.type

(union_specifier name: (type_identifier) @name body: (_)) @definition.union

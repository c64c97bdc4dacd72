; Julia: modules, structs, abstract types, functions (long and short form), macros, constants.
(module_definition name: (identifier) @name) @definition.module
(struct_definition (type_head (identifier) @name)) @definition.struct
(struct_definition (type_head (binary_expression . (identifier) @name))) @definition.struct
(abstract_definition (type_head (identifier) @name)) @definition.type
(abstract_definition (type_head (binary_expression . (identifier) @name))) @definition.type
(function_definition (signature (call_expression . (identifier) @name))) @definition.function
(function_definition (signature (typed_expression . (call_expression . (identifier) @name)))) @definition.function
(function_definition (signature (where_expression . (call_expression . (identifier) @name)))) @definition.function
(function_definition (signature (call_expression . (field_expression (identifier) @name .)))) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro
(assignment . (call_expression . (identifier) @name) (operator)) @definition.function
(const_statement (assignment . (identifier) @name)) @definition.constant

(call_expression . (identifier) @name) @reference.call
(typed_expression (identifier) @name .) @reference.type

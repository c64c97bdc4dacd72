; cairn supplement for typescript and tsx (used together with the JavaScript and TypeScript
; shipped tags.scm): type aliases, enums, and every type name as a reference.

(type_alias_declaration name: (type_identifier) @name) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

(type_identifier) @name @reference.type

(extends_clause value: (identifier) @name) @reference.class

(extends_clause value: (member_expression property: (property_identifier) @name)) @reference.class

(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module

; class fields holding functions: `handle = (e: Event) => {...}`
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

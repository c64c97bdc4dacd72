; javascript grammar only: `class A extends B` (TypeScript spells this extends_clause).
(class_heritage (identifier) @name) @reference.class
(class_heritage (member_expression property: (property_identifier) @name)) @reference.class

; class fields holding functions: `handle = () => {...}`
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

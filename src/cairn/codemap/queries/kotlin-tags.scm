; cairn's tags for tree-sitter-kotlin (the wheel ships none).

(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(type_alias type: (identifier) @name) @definition.type

(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.constant)
(class_body
  (property_declaration (variable_declaration (identifier) @name)) @definition.property)

(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression (identifier) @name .)) @reference.call

((navigation_expression . (identifier) @name) @reference.class
  (#match? @name "^[A-Z]"))

(user_type (identifier) @name) @reference.type

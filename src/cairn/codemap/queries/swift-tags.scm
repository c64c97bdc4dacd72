; cairn's tags for tree-sitter-swift. The shipped tags.scm captures the whole class as the node of
; each method and every local `let` as a property, so cairn uses this file instead.

(class_declaration name: (type_identifier) @name) @definition.class
(class_declaration name: (user_type (type_identifier) @name)) @scope
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(typealias_declaration name: (type_identifier) @name) @definition.type

(source_file
  (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)
(class_body
  (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(call_expression . (simple_identifier) @name) @reference.call
(call_expression
  . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call
((navigation_expression target: (simple_identifier) @name) @reference.class
  (#match? @name "^[A-Z]"))
(user_type (type_identifier) @name) @reference.type

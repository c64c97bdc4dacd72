; cairn supplement to tree-sitter-rust: impl blocks give methods their parent, constants,
; trait method signatures, `Type::func()` calls and type names as references.

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @scope

(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

(function_signature_item name: (identifier) @name) @definition.method

(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call

(scoped_identifier path: (identifier) @name) @reference.type

(type_identifier) @name @reference.type

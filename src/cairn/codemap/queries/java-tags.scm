; cairn supplement to tree-sitter-java: enums, records, annotations, static final constants,
; type names and `Type.staticCall()` receivers as references.

(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface

(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(type_identifier) @name @reference.type

((method_invocation object: (identifier) @name) @reference.class
  (#match? @name "^[A-Z]"))

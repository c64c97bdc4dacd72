; cairn supplement to tree-sitter-python's tags.scm: base classes, type hints and decorators
; are references too (the shipped file only records calls).

(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute attribute: (identifier) @name)])) @reference.class

(type (identifier) @name) @reference.type

(type (generic_type (identifier) @name)) @reference.type

(decorator [(identifier) @name (attribute attribute: (identifier) @name)]) @reference.call

; exception classes caught: `except Error`, `except (A, mod.B) as e`
(except_clause value: [(identifier) @name (attribute attribute: (identifier) @name)]) @reference.class
(except_clause value: (tuple [(identifier) @name (attribute attribute: (identifier) @name)])) @reference.class
(except_clause value: (as_pattern . [(identifier) @name (attribute attribute: (identifier) @name)])) @reference.class
(except_clause
  value: (as_pattern . (tuple [(identifier) @name (attribute attribute: (identifier) @name)]))) @reference.class

; UPPER_CASE class attributes: enum members and class-level constants
((class_definition
  body: (block
    (expression_statement (assignment left: (identifier) @name) @definition.constant)))
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

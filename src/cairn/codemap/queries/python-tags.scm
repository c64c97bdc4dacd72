; cairn supplement to tree-sitter-python's tags.scm: base classes, type hints and decorators
; are references too (the shipped file only records calls).

(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute attribute: (identifier) @name)])) @reference.class

(type (identifier) @name) @reference.type

(type (generic_type (identifier) @name)) @reference.type

(decorator [(identifier) @name (attribute attribute: (identifier) @name)]) @reference.call

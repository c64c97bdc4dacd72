; cairn's tags for tree-sitter-dart. The shipped tags.scm has unnamed method captures and a
; very broad call pattern; this file covers the same ground with named captures.

(class_definition name: (identifier) @name) @definition.class
(mixin_declaration (identifier) @name) @definition.mixin
(extension_declaration name: (identifier) @name) @definition.extension
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias . (type_identifier) @name) @definition.type

(program (function_signature name: (identifier) @name) @definition.function)
(method_signature (function_signature name: (identifier) @name)) @definition.method
(method_signature (getter_signature name: (identifier) @name)) @definition.method
(method_signature (setter_signature name: (identifier) @name)) @definition.method
(declaration (function_signature name: (identifier) @name)) @definition.method
(declaration (getter_signature name: (identifier) @name)) @definition.method

(program
  (static_final_declaration_list (static_final_declaration . (identifier) @name) @definition.constant))

(_ (identifier) @name . (selector (argument_part))) @reference.call
(_ (selector (unconditional_assignable_selector (identifier) @name)) . (selector (argument_part))) @reference.call
(type_identifier) @name @reference.type

; cairn supplement to tree-sitter-php: enums, constants, base classes, type hints, static access.

(enum_declaration name: (name) @name) @definition.enum
(const_declaration (const_element (name) @name)) @definition.constant

(base_clause [(name) @name (qualified_name (name) @name)]) @reference.class
(named_type [(name) @name (qualified_name (name) @name)]) @reference.type
(scoped_call_expression scope: [(name) @name (qualified_name (name) @name)]) @reference.class
(class_constant_access_expression . [(name) @name (qualified_name (name) @name)]) @reference.class

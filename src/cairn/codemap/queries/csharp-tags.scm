; cairn's tags for tree-sitter-c-sharp (its wheel has no queries/ in the package directory).

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module

((field_declaration
  (modifier) @_mod
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
  (#eq? @_mod "const"))

(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (member_access_expression name: (identifier) @name)) @reference.call
((member_access_expression expression: (identifier) @name) @reference.class
  (#match? @name "^[A-Z]"))

(object_creation_expression type: (identifier) @name) @reference.class
(object_creation_expression type: (generic_name (identifier) @name)) @reference.class
(object_creation_expression type: (qualified_name name: (identifier) @name)) @reference.class
(base_list (identifier) @name) @reference.class
(base_list (generic_name (identifier) @name)) @reference.class
(base_list (qualified_name name: (identifier) @name)) @reference.class
(type_parameter_constraint type: (identifier) @name) @reference.class
(type_argument_list (identifier) @name) @reference.type
(variable_declaration type: (identifier) @name) @reference.type
(variable_declaration type: (generic_name (identifier) @name)) @reference.type
(parameter type: (identifier) @name) @reference.type
(method_declaration returns: (identifier) @name) @reference.type
(property_declaration type: (identifier) @name) @reference.type
(attribute name: (identifier) @name) @reference.class

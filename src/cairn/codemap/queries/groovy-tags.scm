; Groovy (Java-like classes plus script functions)
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(function_definition name: (identifier) @name) @definition.function

(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.class
(super_interfaces (type_list (type_identifier) @name)) @reference.implementation
(superclass (type_identifier) @name) @reference.class

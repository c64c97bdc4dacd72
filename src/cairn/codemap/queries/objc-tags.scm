; Objective-C: interfaces, implementations, protocols, categories, methods, properties.
(class_interface . (identifier) @name) @definition.class
(class_implementation . (identifier) @name) @definition.class
(protocol_declaration . (identifier) @name) @definition.interface
(method_declaration (identifier) @name) @definition.method
(method_definition (identifier) @name) @definition.method
(property_declaration (struct_declaration (struct_declarator (identifier) @name))) @definition.property
(property_declaration (struct_declaration (struct_declarator (pointer_declarator (identifier) @name)))) @definition.property

(message_expression method: (identifier) @name) @reference.call
(message_expression receiver: (identifier) @name) @reference.class
(class_interface superclass: (identifier) @name) @reference.class

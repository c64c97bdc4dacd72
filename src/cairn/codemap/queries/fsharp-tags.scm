; F#: modules, namespaces, types, let-bound functions and values, members.
(named_module name: (long_identifier) @name) @definition.module
(namespace name: (long_identifier) @name) @definition.module
(module_defn (identifier) @name) @definition.module
(type_definition (_ (type_name type_name: (identifier) @name))) @definition.type
(function_or_value_defn (function_declaration_left . (identifier) @name)) @definition.function
(function_or_value_defn (value_declaration_left (identifier_pattern (long_identifier_or_op (identifier) @name)))) @definition.constant
(member_defn (method_or_prop_defn name: (property_or_ident method: (identifier) @name))) @definition.method

(long_identifier_or_op (long_identifier (identifier) @name .)) @reference.call
(long_identifier_or_op (identifier) @name) @reference.call
(simple_type (long_identifier (identifier) @name .)) @reference.type
; `let [<Literal>] DoubleDash = "--"`: a value behind its attributes
(function_or_value_defn (value_declaration_left (attribute_pattern (identifier_pattern (long_identifier_or_op (identifier) @name))))) @definition.constant

; OCaml (.ml and .mli): modules, module types, classes, methods, types, let-bound values.
(module_definition (module_binding (module_name) @name) @definition.module)
(module_type_definition (module_type_name) @name) @definition.interface
(class_definition (class_binding (class_name) @name) @definition.class)
(method_definition (method_name) @name) @definition.method
(type_definition (type_binding name: (type_constructor) @name) @definition.type)
(exception_definition (constructor_declaration (constructor_name) @name)) @definition.type
(value_definition (let_binding pattern: (value_name) @name (parameter)) @definition.function)
(value_definition
  (let_binding pattern: (value_name) @name body: [(fun_expression) (function_expression)]) @definition.function)
(value_definition (let_binding pattern: (value_name) @name) @definition.constant)
(external (value_name) @name) @definition.function
(value_specification (value_name) @name) @definition.function

(application_expression function: (value_path (value_name) @name)) @reference.call
(module_path (module_name) @name) @reference.module
(type_constructor_path (type_constructor) @name) @reference.type

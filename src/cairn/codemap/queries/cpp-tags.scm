; cairn supplement for cpp: namespaces, qualified and template calls.

(namespace_definition name: (namespace_identifier) @name) @definition.module

(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier name: (template_function name: (identifier) @name))) @reference.call

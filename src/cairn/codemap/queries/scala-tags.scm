; Scala (supplements the grammar's tags.scm)
(function_declaration name: (identifier) @name) @definition.function
(object_definition name: (identifier) @name) @definition.object

(call_expression function: (field_expression field: (identifier) @name)) @reference.call
(type_identifier) @name @reference.type
; `package object cats { ... }`: a namespace whose members are the package's own, top level (`package` lines are not definitions)
(package_object name: (identifier) @name) @definition.module

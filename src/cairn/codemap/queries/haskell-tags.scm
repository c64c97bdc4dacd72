; Haskell: the module header, data/newtype/type/class declarations, functions and their
; type signatures (merged with the equations that follow them), instance methods.

(header module: (module) @name) @definition.module

(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synonym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface
(instance name: (name) @name) @scope
(instance name: (qualified id: (name) @name)) @scope

(declarations (signature name: (variable) @name) @definition.function)
(declarations (signature name: (prefix_id (operator) @name)) @definition.function)
(declarations (function name: (variable) @name) @definition.function)
(declarations (bind name: (variable) @name) @definition.function)
(class_declarations (signature name: (variable) @name) @definition.function)
(instance_declarations (function name: (variable) @name) @definition.function)
(instance_declarations (bind name: (variable) @name) @definition.function)

(apply function: (variable) @name) @reference.call
(apply function: (qualified id: (variable) @name)) @reference.call
(apply constructor: (name) @name) @reference.type
(signature (function parameter: (name) @name)) @reference.type
(instance name: (name) @name) @reference.class
(instance name: (qualified id: (name) @name)) @reference.class

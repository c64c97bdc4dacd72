; PowerShell: functions, classes and their methods, enums.
(function_statement (function_name) @name) @definition.function
(class_statement . (simple_name) @name) @definition.class
(class_method_definition (simple_name) @name) @definition.method
(enum_statement . (simple_name) @name) @definition.enum

(command command_name: (command_name) @name) @reference.call

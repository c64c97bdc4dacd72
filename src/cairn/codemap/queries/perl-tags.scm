; Perl: packages, subs, `use constant` names.
(package_statement name: (package) @name) @definition.module
(subroutine_declaration_statement name: (bareword) @name) @definition.function
(use_statement
  module: (package) @_m
  (list_expression . (autoquoted_bareword) @name)
  (#eq? @_m "constant")) @definition.constant

(function_call_expression function: (function) @name) @reference.call
(method_call_expression method: (method) @name) @reference.call
(method_call_expression invocant: (bareword) @name) @reference.class

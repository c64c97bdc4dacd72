; cairn supplement to tree-sitter-go: package-level constants and variables.
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))

; interface methods (their parent is the interface's type_spec)
(method_elem name: (field_identifier) @name) @definition.method

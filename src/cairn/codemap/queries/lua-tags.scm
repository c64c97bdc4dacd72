; Lua (supplements the grammar's tags.scm): module tables' constant fields.
(chunk
  (assignment_statement
    (variable_list . name: (dot_index_expression field: (identifier) @name))
    (expression_list . value: [(string) (number) (true) (false)])) @definition.constant)

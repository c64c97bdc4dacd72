; HCL / Terraform: labelled top-level blocks, named by their last label.
(config_file (body (block (identifier) @_t (string_lit (template_literal) @name) . (block_start))
  @definition.module (#eq? @_t "module")))
(config_file (body (block (identifier) @_t (string_lit (template_literal) @name) . (block_start))
  @definition.variable (#any-of? @_t "variable" "output")))
(config_file (body (block (identifier) (string_lit (template_literal) @name) . (block_start)) @definition.class))

(expression (variable_expr (identifier)) . (get_attr (identifier) @name)) @reference.name
(function_call (identifier) @name) @reference.call

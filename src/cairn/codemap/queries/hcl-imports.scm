; module "x" { source = "./modules/x" }
(block
  (identifier) @_t
  (body
    (attribute
      (identifier) @_s
      (expression (literal_value (string_lit (template_literal) @import)))))
  (#eq? @_t "module")
  (#eq? @_s "source"))

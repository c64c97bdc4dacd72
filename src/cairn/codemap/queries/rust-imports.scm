(use_declaration) @import
(mod_item !body) @import

(use_statement (module_name) @import)

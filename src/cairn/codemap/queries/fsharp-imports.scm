(import_decl (long_identifier) @import)

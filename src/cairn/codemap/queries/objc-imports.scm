(module_import path: (identifier) @import)

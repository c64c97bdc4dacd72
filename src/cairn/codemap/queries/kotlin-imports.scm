(import) @import

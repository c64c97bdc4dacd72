(import_or_export) @import
(part_directive) @import

; A module path names a compilation unit (a file) by its first segment, as ocamldep reads it.
(open_module module: (module_path . (module_name) @import))
(include_module module: (module_path . (module_name) @import))
(value_path . (module_path . (module_name) @import))

; SQL: tables, views, functions, types; every object name used is a reference.
(create_table (object_reference name: (identifier) @name)) @definition.table
(create_view (object_reference name: (identifier) @name)) @definition.view
(create_materialized_view (object_reference name: (identifier) @name)) @definition.view
(create_function (object_reference name: (identifier) @name)) @definition.function
(create_type (object_reference name: (identifier) @name)) @definition.type

(object_reference name: (identifier) @name) @reference.table

; JSX component usage counts as a reference (javascript and tsx grammars); lowercase tags are
; HTML elements, not components.

((jsx_opening_element name: (identifier) @name) @reference.class (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: (identifier) @name) @reference.class (#match? @name "^[A-Z]"))
(jsx_opening_element name: (member_expression property: (property_identifier) @name)) @reference.class
(jsx_self_closing_element name: (member_expression property: (property_identifier) @name)) @reference.class

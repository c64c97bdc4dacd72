; JSX component usage counts as a reference (javascript and tsx grammars).

(jsx_opening_element name: (identifier) @name) @reference.class
(jsx_self_closing_element name: (identifier) @name) @reference.class
(jsx_opening_element name: (member_expression property: (property_identifier) @name)) @reference.class
(jsx_self_closing_element name: (member_expression property: (property_identifier) @name)) @reference.class

; cairn supplement to tree-sitter-ruby. The shipped "every identifier is a call unless local"
; pattern needs locals tracking we do not run, so parse_queries disables it; constants and
; explicit calls remain references.

(constant) @name @reference.class

(assignment left: (constant) @name) @definition.constant

; `import x = require("y")`
(import_require_clause source: (string)) @import

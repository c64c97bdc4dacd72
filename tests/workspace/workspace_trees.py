"""The small repositories of the workspace tests: a Go service, the Go router library it imports, a project outside."""

ROUTER = {
    "go.mod": "module github.com/acme/router/v2\n\ngo 1.22\n",
    "mux.go": "package router\n\n// Mux dispatches requests to handlers.\ntype Mux struct{}\n\n"
    "func NewMux() *Mux { return &Mux{} }\n",
    "middleware/throttle.go": "package middleware\n\n// Throttle limits concurrent requests.\n"
    "func Throttle(limit int) int { return limit }\n",
}
SERVICE = {
    "go.mod": "module github.com/acme/billing\n\ngo 1.22\n\nrequire github.com/acme/router/v2 v2.0.0\n",
    "server.go": 'package main\n\nimport (\n\t"github.com/acme/router/v2"\n\t"github.com/acme/router/v2/middleware"\n'
    '\t"github.com/acme/billing/invoice"\n)\n\nfunc main() {\n\t_ = router.NewMux()\n\t_ = middleware.Throttle(4)\n'
    "\t_ = invoice.Total()\n}\n",
    "invoice/total.go": "package invoice\n\n// Total sums the invoice lines.\nfunc Total() int { return 0 }\n",
}
OUTSIDE = {
    "secret_plans.py": "def zanzibar_quokka_protocol():\n    return 'never read through a workspace'\n",
}

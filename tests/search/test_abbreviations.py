"""A request that says a long form also searches the short name code gives it ("openid connect" -> oidc)."""

from __future__ import annotations

from cairn.codemap.index_db import open_index
from cairn.codemap.indexer import index_project
from cairn.project import project_for_root
from cairn.search.engine import search_code
from cairn.text.abbreviations import short_forms
from helpers import make_git_repo


def test_short_forms_of_what_a_request_says():
    assert short_forms("logout from OpenID Connect; check the JSON web tokens") == ["oidc", "jwt"]
    assert short_forms("the web-socket and the Kubernetes configuration") == ["ws", "websocket", "k8s", "config", "cfg"]
    assert short_forms("oidc and jwt already short") == []  # only long -> short


def test_server_sent_events_are_sse():
    """hono's SSE helper is `src/helper/streaming/sse.ts` (`streamSSE`, `SSEMessage`): no line of it says
    "server-sent", so "how does hono stream server-sent events to the client?" reached it only
    through "stream" (issue 35 item 13)."""
    assert short_forms("how does hono stream server-sent events to the client?") == ["sse"]
    assert short_forms("a Server Sent Event stream") == ["sse"]


def test_a_long_form_finds_the_file_named_by_its_abbreviation(tmp_path):
    files = {
        "internal/auth/oidc.go": "package auth\n\nfunc (o *OIDC) EndSession(w Writer) {\n\trevoke(w)\n}\n",
        "internal/auth/local.go": "package auth\n\n// log out when logged in\nfunc (l *Local) LogOut(u string) {\n}\n",
        **{
            f"internal/api/h{i}.go": f"package api\n\n// logged in users can log out\nfunc Handle{i}(w Writer) {{\n"
            f"\tlogout(w)\n}}\n"
            for i in range(8)
        },
    }
    root = make_git_repo(tmp_path / "repo", files)
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    hits, _ = search_code(con, "how can you log out if logged in with openid connect?", root=root)
    assert hits[0].path == "internal/auth/oidc.go"
    con.close()


HONO = {  # hono's layout, shortened: the stream helper, the SSE helper beside it, the client
    "src/helper/streaming/stream.ts": "import { StreamingApi } from '../../utils/stream'\n\n"
    "export const stream = (c: Context, cb: (stream: StreamingApi) => Promise<void>): Response => {\n"
    "  const { readable, writable } = new TransformStream()\n  const stream = new StreamingApi(writable, readable)\n"
    "  cb(stream).finally(() => stream.close())\n  return c.newResponse(stream.responseReadable)\n}\n",
    "src/helper/streaming/sse.ts": "import { StreamingApi } from '../../utils/stream'\n\n"
    "export interface SSEMessage {\n  data: string\n  event?: string\n  id?: string\n  retry?: number\n}\n\n"
    "export class SSEStreamingApi extends StreamingApi {\n  async writeSSE(message: SSEMessage) {\n"
    "    const lines = message.data.split('\\n').map((line) => `data: ${line}`).join('\\n')\n"
    "    await this.write([message.event && `event: ${message.event}`, lines].filter(Boolean).join('\\n') + '\\n\\n')\n"
    "  }\n}\n\n"
    "export const streamSSE = (c: Context, cb: (stream: SSEStreamingApi) => Promise<void>): Response => {\n"
    "  const { readable, writable } = new TransformStream()\n  const stream = new SSEStreamingApi(writable, readable)\n"
    "  c.header('Content-Type', 'text/event-stream')\n  cb(stream).finally(() => stream.close())\n"
    "  return c.newResponse(stream.responseReadable)\n}\n",
    "src/utils/stream.ts": "export class StreamingApi {\n  constructor(writable: WritableStream, readable: ReadableStream) {}\n"
    "  async write(input: string) {}\n  async close() {}\n  abort() {}\n}\n",
    "src/client/client.ts": "export const hc = (baseUrl: string) => ({\n  get: (path: string) => fetch(baseUrl + path),\n})\n",
    "src/context.ts": "export class Context {\n  header(name: string, value: string) {}\n"
    "  newResponse(body: ReadableStream) { return new Response(body) }\n}\n",
    **{
        f"src/middleware/m{i}/index.ts": f"export const m{i} = (c: Context, next: () => Promise<void>) => next()\n"
        for i in range(6)
    },
}


def test_a_question_about_server_sent_events_finds_the_sse_helper(tmp_path):
    root = make_git_repo(tmp_path / "hono", HONO)
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    try:
        hits, _ = search_code(con, "how does hono stream server-sent events to the client?", root=root)
        assert hits[0].path == "src/helper/streaming/sse.ts", [h.path for h in hits]
    finally:
        con.close()

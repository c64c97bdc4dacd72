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


def test_a_long_form_finds_the_file_named_by_its_abbreviation(tmp_path):
    files = {"internal/auth/oidc.go": "package auth\n\nfunc (o *OIDC) EndSession(w Writer) {\n\trevoke(w)\n}\n",
             "internal/auth/local.go": "package auth\n\n// log out when logged in\nfunc (l *Local) LogOut(u string) {\n}\n",
             **{f"internal/api/h{i}.go": f"package api\n\n// logged in users can log out\nfunc Handle{i}(w Writer) {{\n"
                                         f"\tlogout(w)\n}}\n" for i in range(8)}}
    root = make_git_repo(tmp_path / "repo", files)
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    hits, _ = search_code(con, "how can you log out if logged in with openid connect?", root=root)
    assert hits[0].path == "internal/auth/oidc.go"
    con.close()

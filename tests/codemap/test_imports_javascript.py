"""JS/TS resolution: relative paths, probing, index files, tsconfig aliases, workspace packages."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.imports.context import strip_jsonc
from cairn.codemap.model import ImportRef

SOURCE_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", ".json")


def make_repo(root: Path, files: dict[str, str]) -> ResolverContext:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    # Config files sit on disk but are not indexed: the context must find them by itself.
    indexed = [f for f in files if f.endswith(SOURCE_EXTS) and not f.endswith(("package.json", "config.json"))]
    return build_context(root, indexed)


def res(ctx: ResolverContext, path: str, spec: str, lang: str = "typescript") -> list[str]:
    return resolve_import(ctx, lang, path, ImportRef(raw=spec, line=1))


APP = {
    "src/main.ts": "",
    "src/util.ts": "",
    "src/lib/index.ts": "",
    "src/lib/format.tsx": "",
    "src/lib/legacy.js": "",
    "src/lib/esm.mjs": "",
    "src/lib/types.d.ts": "",
    "src/components/Button.vue": "",
    "src/components/Card.jsx": "",
    "src/components/helpers.ts": "",
    "src/data.json": "",
    "src/both.ts": "",
    "src/both/index.ts": "",
    "tsconfig.json": """{
  // comments, trailing commas and URLs in strings must all survive
  "compilerOptions": {
    "baseUrl": ".",
    /* aliases */
    "paths": {
      "@/*": ["src/*"],
      "#lib": ["src/lib/index.ts"],
      "~components/*": ["src/components/*",],
    },
    "homepage": "https://example.com//x",
  },
}
""",
}


def test_relative_with_extension_probing(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, APP)
    assert res(ctx, "src/main.ts", "./util") == ["src/util.ts"]
    assert res(ctx, "src/main.ts", "./lib/format") == ["src/lib/format.tsx"]
    assert res(ctx, "src/main.ts", "./lib/legacy") == ["src/lib/legacy.js"]
    assert res(ctx, "src/main.ts", "./lib/esm") == ["src/lib/esm.mjs"]
    assert res(ctx, "src/main.ts", "./lib/types") == ["src/lib/types.d.ts"]
    assert res(ctx, "src/main.ts", "./components/Card") == ["src/components/Card.jsx"]
    assert res(ctx, "src/main.ts", "./data.json") == ["src/data.json"]
    assert res(ctx, "src/lib/format.tsx", "../util") == ["src/util.ts"]
    assert res(ctx, "src/main.ts", "./missing") == []
    assert res(ctx, "src/main.ts", "../../outside") == []


def test_index_files_and_file_beats_directory(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, APP)
    assert res(ctx, "src/main.ts", "./lib") == ["src/lib/index.ts"]
    assert res(ctx, "src/main.ts", "./lib/") == ["src/lib/index.ts"]
    assert res(ctx, "src/lib/format.tsx", ".") == ["src/lib/index.ts"]
    assert res(ctx, "src/main.ts", "./both") == ["src/both.ts"]
    assert res(ctx, "src/main.ts", "./both/index") == ["src/both/index.ts"]


def test_js_specifier_pointing_at_ts_source(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, APP)
    assert res(ctx, "src/main.ts", "./util.js") == ["src/util.ts"]
    assert res(ctx, "src/main.ts", "./lib/format.jsx") == ["src/lib/format.tsx"]
    assert res(ctx, "src/main.ts", "./lib/legacy.js") == ["src/lib/legacy.js"]


def test_vue_single_file_component_and_query_suffix(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, APP)
    assert res(ctx, "src/main.ts", "./components/Button.vue") == ["src/components/Button.vue"]
    assert res(ctx, "src/main.ts", "./components/Button") == ["src/components/Button.vue"]
    assert res(ctx, "src/components/Button.vue", "./helpers", "vue") == ["src/components/helpers.ts"]
    assert res(ctx, "src/main.ts", "./components/Button.vue?raw") == ["src/components/Button.vue"]


def test_tsconfig_paths_with_comments_and_base_url(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, APP)
    assert res(ctx, "src/main.ts", "@/util") == ["src/util.ts"]
    assert res(ctx, "src/components/Card.jsx", "@/lib/format", "javascript") == ["src/lib/format.tsx"]
    assert res(ctx, "src/main.ts", "@/lib") == ["src/lib/index.ts"]
    assert res(ctx, "src/main.ts", "#lib") == ["src/lib/index.ts"]
    assert res(ctx, "src/main.ts", "~components/Button.vue") == ["src/components/Button.vue"]
    # baseUrl "." makes root-relative bare specifiers work too.
    assert res(ctx, "src/lib/index.ts", "src/util") == ["src/util.ts"]


def test_bare_packages_are_external(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, APP)
    assert res(ctx, "src/main.ts", "react") == []
    assert res(ctx, "src/main.ts", "@tanstack/query") == []
    assert res(ctx, "src/main.ts", "node:fs") == []
    assert res(ctx, "src/main.ts", "lodash/merge") == []


def test_strip_jsonc_keeps_strings() -> None:
    text = '{"a": "x // not a comment", /* c */ "b": [1, 2,], // tail\n "c": "/* kept */",}'
    assert json.loads(strip_jsonc(text)) == {"a": "x // not a comment", "b": [1, 2], "c": "/* kept */"}


def test_jsconfig_and_extends_of_local_file(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "tsconfig.base.json": '{"compilerOptions": {"baseUrl": "./", "paths": {"@shared/*": ["libs/shared/src/*"]}}}',
            "apps/web/tsconfig.json": '{ "extends": "../../tsconfig.base.json", "compilerOptions": {"strict": true,} }',
            "apps/web/src/page.tsx": "",
            "libs/shared/src/date.ts": "",
            "site/jsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}',
            "site/src/app.js": "",
            "site/src/widgets/clock.js": "",
        },
    )
    assert res(ctx, "apps/web/src/page.tsx", "@shared/date") == ["libs/shared/src/date.ts"]
    assert res(ctx, "site/src/app.js", "widgets/clock", "javascript") == ["site/src/widgets/clock.js"]


def test_paths_without_base_url_are_relative_to_config(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "web/tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}',
            "web/src/a.ts": "",
            "web/src/b/c.ts": "",
        },
    )
    assert res(ctx, "web/src/a.ts", "@/b/c") == ["web/src/b/c.ts"]


def test_at_alias_defaults_to_src_without_config(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, {"src/App.vue": "", "src/store/index.js": "", "src/views/Home.vue": ""})
    assert res(ctx, "src/views/Home.vue", "@/store", "vue") == ["src/store/index.js"]
    assert res(ctx, "src/App.vue", "@/views/Home.vue", "vue") == ["src/views/Home.vue"]


def test_workspace_packages_like_vue_core(tmp_path: Path) -> None:
    pkg = {"name": "@vue/runtime-core", "main": "index.js", "module": "dist/runtime-core.esm-bundler.js"}
    ctx = make_repo(
        tmp_path,
        {
            "package.json": '{"name": "vue-monorepo", "private": true}',
            "packages/runtime-core/package.json": json.dumps(pkg),
            "packages/runtime-core/index.js": "",
            "packages/runtime-core/src/index.ts": "",
            "packages/runtime-core/src/apiWatch.ts": "",
            "packages/shared/package.json": '{"name": "@vue/shared", "types": "dist/shared.d.ts"}',
            "packages/shared/src/index.ts": "",
            "packages/shared/src/general.ts": "",
            "packages/plain/package.json": '{"name": "plain-lib", "main": "lib/main.js"}',
            "packages/plain/lib/main.js": "",
            "packages/runtime-dom/src/index.ts": "",
        },
    )
    assert res(ctx, "packages/runtime-dom/src/index.ts", "@vue/runtime-core") == ["packages/runtime-core/src/index.ts"]
    assert res(ctx, "packages/runtime-core/src/apiWatch.ts", "@vue/shared") == ["packages/shared/src/index.ts"]
    assert res(ctx, "packages/runtime-dom/src/index.ts", "@vue/shared/src/general") == [
        "packages/shared/src/general.ts"
    ]
    assert res(ctx, "packages/runtime-dom/src/index.ts", "plain-lib") == ["packages/plain/lib/main.js"]
    assert res(ctx, "packages/runtime-dom/src/index.ts", "@vue/not-here") == []


def test_tsconfig_paths_to_package_sources(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "tsconfig.json": '{"compilerOptions": {"paths": {"@vue/*": ["./packages/*/src"], "vue": ["./packages/vue/src"]}}}',
            "packages/reactivity/src/index.ts": "",
            "packages/vue/src/index.ts": "",
            "packages/runtime-core/src/renderer.ts": "",
        },
    )
    assert res(ctx, "packages/runtime-core/src/renderer.ts", "@vue/reactivity") == ["packages/reactivity/src/index.ts"]
    assert res(ctx, "packages/runtime-core/src/renderer.ts", "vue") == ["packages/vue/src/index.ts"]


def test_lang_unknown_falls_back_to_extension(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, APP)
    assert res(ctx, "src/main.ts", "./util", lang="weird") == ["src/util.ts"]


def test_workspace_exports_map_build_output_back_to_sources(tmp_path: Path) -> None:
    pkg = {
        "name": "vite",
        "exports": {
            ".": "./dist/node/index.js",
            "./module-runner": {
                "types": "./dist/node/module-runner.d.ts",
                "import": "./dist/node/module-runner.js",
            },
        },
    }
    ctx = make_repo(
        tmp_path,
        {
            "packages/vite/package.json": json.dumps(pkg),
            "packages/vite/src/node/index.ts": "",
            "packages/vite/src/node/module-runner.ts": "",
            "packages/plugin-legacy/src/index.ts": "",
        },
    )
    src = "packages/plugin-legacy/src/index.ts"
    assert res(ctx, src, "vite") == ["packages/vite/src/node/index.ts"]
    assert res(ctx, src, "vite/module-runner") == ["packages/vite/src/node/module-runner.ts"]
    assert res(ctx, src, "vite/missing") == []


def test_root_relative_specifier_uses_the_project_root(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "playground/ssr/package.json": '{"private": true}',
            "playground/ssr/src/app.ts": "",
            "playground/ssr/server.js": "",
            "shared/util.ts": "",
        },
    )
    assert res(ctx, "playground/ssr/server.js", "/src/app.ts", "javascript") == ["playground/ssr/src/app.ts"]
    assert res(ctx, "playground/ssr/src/app.ts", "/shared/util") == ["shared/util.ts"]


def test_node_subpath_imports(tmp_path: Path) -> None:
    imports = {
        "#db": "./src/db/index.js",
        "#utils/*": {"types": "./src/utils/*.ts", "default": "./dist/utils/*.js"},
    }
    ctx = make_repo(
        tmp_path,
        {
            "server/package.json": json.dumps({"name": "server", "imports": imports}),
            "server/src/db/index.ts": "",
            "server/src/utils/time.ts": "",
            "server/src/routes/users.ts": "",
        },
    )
    assert res(ctx, "server/src/routes/users.ts", "#db") == ["server/src/db/index.ts"]
    assert res(ctx, "server/src/routes/users.ts", "#utils/time") == ["server/src/utils/time.ts"]
    assert res(ctx, "server/src/routes/users.ts", "#nope") == []

"""A report that names a command or an API function finds the code it delegates to (issue 38: conan's
`conan cache restore` is fixed in the cache API, dvc's `dvc.api.params_show` in `repo/params/show.py`),
and a call through an object that spells no module (moto's responses -> models) leads nowhere."""

from __future__ import annotations

from cairn.search import delegates
from cairn.search.engine import search_code
from helpers import indexed_repo

_FILLER = "".join(f"        step_{i} = folder.step({i})\n" for i in range(12))
FILES = {
    "tool/__init__.py": "",
    "tool/cli/__init__.py": "",
    "tool/cli/commands/__init__.py": "",
    "tool/cli/commands/cache.py": "def cache_save(api, pattern):\n"
    '    """Save the packages matching a pattern of the cache to an archive."""\n'
    "    return api.cache.save(pattern)\n\n\n"
    "def cache_restore(api, path):\n"
    '    """Restore the packages of an archive into the cache."""\n'
    "    folders = api.cache.restore(path)\n"
    "    print('restored', folders)\n    return folders\n",
    "tool/api/__init__.py": "",
    "tool/api/subapi/__init__.py": "",
    "tool/api/subapi/cache.py": "import shutil\n\n\nclass CacheAPI:\n"
    "    def save(self, pattern):\n        return archive(pattern)\n\n"
    "    def restore(self, path):\n        for folder in unpack(path):\n"
    "            shutil.copytree(folder.src, folder.dst)\n" + _FILLER + "        return path\n",
    "tool/api/archive.py": "def archive(pattern):\n    return pattern\n\n\ndef unpack(path):\n    return [path]\n",
    "svc/__init__.py": "",
    "svc/users/__init__.py": "",
    "svc/users/responses.py": "class UserResponse:\n    def create_user(self):\n"
    "        name = self._get_param('UserName')\n"
    "        user = self.backend.create_user(name)\n        return render_user(user)\n",
    "svc/users/models.py": "class User:\n    pass\n\n\nclass UserBackend:\n"
    "    def create_user(self, name):\n        user = User()\n        user.name = name\n        return user\n",
    **{f"tool/misc_{i}.py": f"def helper_{i}(cache):\n    return cache\n" for i in range(6)},
}

REPORT = (
    "conan cache restore produces incorrect folders if run multiple times\n\n"
    "When `tool cache restore` is used to restore the same saved cache multiple times, the second restore "
    "silently continues instead of exiting and the third one fails with an error:\n\n"
    "```\nshutil.Error: Destination path '/tmp/x/p/p' already exists\n```\n\n"
    "I worked around it with the following commands:\n\n"
    "```\ntool cache save pkg/*:*\ntool remove -c *\ntool cache restore\ntool cache save pkg/*:*\n```\n\n"
    "Calling `cache_restore(api, 'pkgs.tgz')` twice leaves the folders of the first run behind, so the "
    "restore should replace them or refuse to run.\n"
)


def test_a_report_naming_a_command_finds_the_implementation_it_delegates_to(tmp_path):
    con, root = indexed_repo(tmp_path / "tool", FILES)
    try:
        hits, q = search_code(con, REPORT, root=root, limit=5)
        assert q.long
        paths = [h.path for h in hits]
        assert paths[0] == "tool/api/subapi/cache.py", paths  # the code the command hands its work to
        assert "tool/cli/commands/cache.py" in paths[:3]  # the command itself stays near
        assert hits[0].symbols[0] == "restore"  # the called method first
        assert any("called by tool/cli/commands/cache.py as api.cache.restore()" in w for w in hits[0].why)
    finally:
        con.close()


def test_a_call_through_an_object_naming_no_module_leads_nowhere(tmp_path):
    """moto's shape: a response handler calls its backend's method of the same name; the call spells no
    module (`self.backend.create_user(`), so neither file is put above the other by this rule."""
    con, root = indexed_repo(tmp_path / "svc", FILES)
    try:
        ids = {p: i for i, p in con.execute("SELECT id, path FROM files")}
        resp = ids["svc/users/responses.py"]
        line = con.execute("SELECT line FROM symbols WHERE file_id = ? AND name = 'create_user'", (resp,)).fetchone()
        assert delegates.callees(con, root, [(resp, [("create_user", line[0])])]) == {}
        wrapper = ids["tool/cli/commands/cache.py"]
        line = con.execute(
            "SELECT line FROM symbols WHERE file_id = ? AND name = 'cache_restore'", (wrapper,)
        ).fetchone()
        found = delegates.callees(con, root, [(wrapper, [("cache_restore", line[0])])])
        assert found == {ids["tool/api/subapi/cache.py"]: (wrapper, "api.cache.restore")}  # not save's callee
        assert delegates.callees(con, None, [(wrapper, [("cache_restore", line[0])])]) == {}  # no tree: no reading
    finally:
        con.close()

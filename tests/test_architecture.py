"""The architecture holds: layers import only downwards (ARCHITECTURE.md), no module import cycle, and
the package's code is formatted and within 120 columns (pyproject.toml's [tool.ruff]).

The package's rooms live in three folders (lint/, rules/, protos/) that setuptools maps to one
`tflint` package, so the checks run on a staged copy laid out as installed.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

grimp = pytest.importorskip("grimp")


@pytest.fixture(scope="module")
def staged(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("staged")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "lint", root / "tflint", ignore=ignore)
    shutil.copytree(REPO / "rules", root / "tflint" / "rules", ignore=ignore)
    shutil.copytree(REPO / "protos", root / "tflint" / "protos", ignore=ignore)
    return root


@pytest.fixture(scope="module")
def graph(staged: Path):
    sys.path.insert(0, str(staged))
    saved = {name: module for name, module in sys.modules.items() if name == "tflint" or name.startswith("tflint.")}
    for name in saved:
        del sys.modules[name]
    try:
        # TYPE_CHECKING imports count: an annotation that needs a module above is a cycle too.
        yield grimp.build_graph("tflint", exclude_type_checking_imports=False, cache_dir=None)
    finally:
        sys.path.remove(str(staged))
        for name in [n for n in sys.modules if n == "tflint" or n.startswith("tflint.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def test_the_layer_contract_holds(staged: Path):
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=staged,
        env={"PYTHONPATH": str(staged), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 kept, 0 broken" in result.stdout


def test_no_module_is_part_of_an_import_cycle(graph):
    cycles = _strongly_connected(graph)
    assert cycles == []


def test_architecture_md_names_every_room_of_the_contract():
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    layers = re.search(r"layers = \[(.*?)\]", pyproject, re.S).group(1)
    rooms = {room.strip() for line in re.findall(r'"([^"]+)"', layers) for room in line.split("|")}
    for room in rooms:
        package = REPO / "lint" / room
        if package.is_dir() or (REPO / "lint" / f"{room}.py").exists():
            assert f"{room}/" in text or f"{room}.py" in text, room
    for folder in sorted(p.name for p in (REPO / "lint").iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert f"{folder}/" in text, f"lint/{folder}/ is not described in ARCHITECTURE.md"


def test_the_engine_names_no_rule():
    from tflint.rules import RULES

    for path in sorted((REPO / "lint" / "engine").glob("*.py")):
        code = path.read_text(encoding="utf-8")
        named = [rule_id for rule_id in RULES if f'"{rule_id}"' in code or f"'{rule_id}'" in code]
        assert named == [], f"{path.name} names rules: a rule's module declares what the engine needs"


def test_the_api_is_a_facade():
    # api.py hands each call to the room that does the work (ARCHITECTURE.md): it reads no file format itself
    # and reaches the engine through its entries, never its run machinery.
    tree = ast.parse((REPO / "lint" / "api.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    below = sorted(name for name in imported if name.startswith(("tflint.read", "tflint.rules", "tflint.runtime")))
    assert below == [], f"api.py imports {below}: delegate to config/, engine/session or baseline.py"
    assert not imported & {"tflint.engine.run", "tflint.engine.parallel", "tflint.engine.compat"}


# The modules that may open, map, list or write files themselves, and why (ARCHITECTURE.md, "one door").
# Everything a user gives or tflint finds (graphs, configs, ignore files, baselines, op-defs) is opened
# by read/guarded.py; the others open the package's own data, write output, or talk between processes.
FILE_SYSTEM = {
    "read/guarded.py": "the one open of every file a user gives or tflint finds",
    "read/mapped.py": "maps a graph file that read/guarded opened, in a forked child (walk_in_child)",
    "read/interface.py": "lists version directories (a version file is mapped by read/mapped, in a child)",
    "read/walk.py": "lists the directories it searches",
    "read/saved_model.py": "lists a SavedModel's assets/ and variables/",
    "read/sniff.py": "the package's own vocabularies of file formats (read/formats.json)",
    "tf/registry.py": "the package's own op registry (tf/data)",
    "tf/releases.py": "the package's own release registries (tf/data)",
    "tf/kernels.py": "the package's own kernel registrations (tf/data)",
    "config/settings.py": "the package's own presets (config/presets)",
    "cli.py": "the package's registry.json for --version, without importing the registry",
    "report/output.py": "writes the report (-o FILE), atomically",
    "runtime/fork.py": "pipes and anonymous maps between a process and its forked children",
    "engine/fix.py": "--fix writes a graph back, atomically, and cleans up its temporaries",
    "config/git_driver.py": "tflint git-setup adds its lines to the repository's .gitattributes",
    "read/gitrev.py": "diff REV:PATH writes the path's blobs out of git into a temporary directory",
}
_OPENERS = {"open", "fdopen", "mmap", "scandir", "listdir", "walk", "mkstemp", "mkdtemp", "NamedTemporaryFile"}
_PATH_METHODS = {"read_bytes", "read_text", "write_bytes", "write_text", "iterdir"}


def test_only_the_listed_modules_touch_the_file_system():
    import ast

    touching: dict[str, list[int]] = {}
    for folder, prefix in (("lint", ""), ("rules", "rules/")):
        for path in sorted((REPO / folder).rglob("*.py")):
            name = prefix + path.relative_to(REPO / folder).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                function = node.func
                called = function.id if isinstance(function, ast.Name) else getattr(function, "attr", None)
                on_module = isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name)
                if (
                    (isinstance(function, ast.Name) and called == "open")
                    or (on_module and called in _OPENERS and function.value.id in ("os", "io", "mmap", "tempfile"))
                    or (isinstance(function, ast.Attribute) and called in _PATH_METHODS and not node.args)
                ):
                    touching.setdefault(name, []).append(node.lineno)
    unexpected = {name: lines for name, lines in touching.items() if name not in FILE_SYSTEM}
    assert unexpected == {}, "open files through tflint.read.guarded (or list the module, and why, here)"
    assert touching.keys() >= {"read/guarded.py", "read/walk.py", "report/output.py"}  # the scan finds them


# Tests at the top of tests/ named like a module of a room, that test the tool as a whole instead.
WHOLE_TOOL_TESTS = {
    "test_compat.py": "the `tflint compat` command and API (engine/compat, tf/compat and the compat rules)",
    "test_serving.py": "validate() and the serving preset on real SavedModels",
    "test_fix.py": "the `--fix` and `--diff` commands (engine/fix, read/edit, tf/strip)",
}


def test_tests_mirror_the_rooms():
    """tests/<room>/test_<module>.py tests one module of a room; tests/test_*.py the tool (ARCHITECTURE.md)."""
    rooms = {path.parent.relative_to(REPO / "lint").as_posix() for path in (REPO / "lint").rglob("*.py")}
    misplaced = []
    for test in sorted((REPO / "tests").glob("test_*.py")):
        module = test.name.removeprefix("test_")
        homes = [room for room in sorted(rooms) if (REPO / "lint" / room / module).is_file()]
        if homes and "." not in homes and test.name not in WHOLE_TOOL_TESTS:
            misplaced.append(f"{test.name} -> tests/{homes[0]}/")
    assert misplaced == []
    names = [test.name for test in (REPO / "tests").rglob("test_*.py")]
    assert len(names) == len(set(names)), "test module names are unique across folders (pytest imports by name)"


# Modules of tf/ without a test module of their own in tests/tf/, and where they are tested instead.
# The list only shrinks: a new tf/ module comes with tests/tf/test_<module>.py.
TF_TESTED_ELSEWHERE = {
    "checkpoint.py": "tests/rules/test_checkpoint_*.py (a checkpoint's index, shards, keys, checksums)",
    "kernels.py": "tests/test_kernel_verdicts.py (TF 2.21's verdicts replayed) and tests/rules/test_missing_kernel.py",
    "warmup.py": "tests/rules/test_warmup_*.py (warm-up request records)",
}


def test_tf_modules_have_their_own_tests():
    """ARCHITECTURE.md, Tests: each module of tf/ has tests/tf/test_<module>.py (or test_tf_<module>.py when a
    top-level test has the plain name), except those listed above; the shape functions are tested by the replays."""
    tests = {path.name for path in (REPO / "tests" / "tf").glob("test_*.py")}
    untested = [
        path.name
        for path in sorted((REPO / "lint" / "tf").glob("*.py"))
        if path.name != "__init__.py"
        and not {f"test_{path.name}", f"test_tf_{path.name}"} & tests
        and path.name not in TF_TESTED_ELSEWHERE
    ]
    assert untested == [], "add tests/tf/test_<module>.py for these tf/ modules"
    assert all((REPO / "lint" / "tf" / name).is_file() for name in TF_TESTED_ELSEWHERE)


def _ruff(*args: str) -> subprocess.CompletedProcess:
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    return subprocess.run([str(ruff), *args], cwd=REPO, capture_output=True, text=True)


def test_package_lines_are_at_most_120_columns():
    result = _ruff("check", "--no-cache", "--select", "E501", "--output-format", "concise", "lint", "rules")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    # ruff lets a line that is one long token (a string, a URL) pass; the rule here has no exception.
    long_lines = [
        f"{path.relative_to(REPO)}:{number}"
        for folder in ("lint", "rules")
        for path in sorted((REPO / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if len(line) > 120
    ]
    assert long_lines == []


def test_package_is_formatted():
    result = _ruff("format", "--no-cache", "--check", "lint", "rules")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def _strongly_connected(graph) -> list[list[str]]:
    """Tarjan's algorithm, iteratively: the groups of modules that import each other, directly or not."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = 0
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                    break
                if child in on_stack:
                    low[module] = min(low[module], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == module:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups

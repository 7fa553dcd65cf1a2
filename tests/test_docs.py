"""Documentation that cannot go stale: docs/rules.md, `tflint explain`, the README's usage and hook."""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import REPO

from tflint.cli import _build_parser, _compat_parser, _git_setup_parser, _review_parser, _rules_parser, main
from tflint.read.walk import GRAPH_EXTENSIONS
from tflint.report.rulesdoc import GENERATED_NOTE, markdown
from tflint.rules import RULES

RULES_DOC = REPO / "docs" / "rules.md"
README = (REPO / "README.md").read_text()
REGENERATE = "docs/rules.md is stale: regenerate it with `tflint rules --format markdown > docs/rules.md`"


def test_rules_doc_is_generated_from_the_docstrings():
    assert RULES_DOC.read_text() == markdown(RULES), REGENERATE


def test_rules_doc_command_prints_the_same(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no .tflint.yaml here, so no plugins
    assert main(["rules", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == markdown(RULES)


def test_rules_doc_has_every_rule_with_its_examples():
    text = markdown(RULES)
    assert text.startswith("# Rules\n\n" + GENERATED_NOTE)
    for rule_id, module in RULES.items():
        assert f"| [`{rule_id}`](#{rule_id}) | {module.CATEGORY} | {module.DEFAULT_SEVERITY} |" in text
        section = text.split(f"\n## {rule_id}\n", 1)[1].split("\n## ", 1)[0]
        assert "Fail:\n\n```protobuf\n" in section
        for key in getattr(module, "OPTIONS", {}):
            assert f"| `{key}` |" in section


def test_documentation_urls_are_the_project_urls_of_pyproject_and_point_at_a_section():
    from tflint.report.rulesdoc import HOME_URL, RULES_URL, help_uri

    pyproject = (REPO / "pyproject.toml").read_text()
    urls = dict(re.findall(r'^(Homepage|Documentation) = "([^"]+)"$', pyproject.split("[project.urls]", 1)[1], re.M))
    assert urls == {"Homepage": HOME_URL, "Documentation": RULES_URL}
    assert RULES_URL.endswith("/docs/rules.md")
    headings = set(re.findall(r"^## (\S+)$", RULES_DOC.read_text(), re.M))
    for rule_id, module in RULES.items():
        url = help_uri(rule_id, module)
        assert url == f"{RULES_URL}#{rule_id}"
        assert url.rpartition("#")[2] in headings  # GitHub's anchor of `## rule-id` is `#rule-id`


def test_explain_ends_with_the_rules_url(capsys):
    from tflint.report.rulesdoc import RULES_URL

    assert main(["explain", "unknown-op"]) == 0
    assert capsys.readouterr().out.endswith(f"\nSee {RULES_URL}#unknown-op\n")


def test_the_staleness_test_would_notice_a_changed_docstring(monkeypatch):
    module = RULES["unknown-op"]
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace("Every node's op", "Each node's op"))
    assert markdown(RULES) != RULES_DOC.read_text()


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_explain_prints_the_docstring_and_options(capsys, rule_id):
    import inspect

    module = RULES[rule_id]
    assert main(["explain", rule_id]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"{rule_id} ({module.CATEGORY}, default level: {module.DEFAULT_SEVERITY})\n\n{inspect.getdoc(module)}\n"
    )
    for key, value in getattr(module, "OPTIONS", {}).items():
        assert f"  {key}: {value!r}\n" in out


def test_explain_suggests_a_close_rule(capsys):
    assert main(["explain", "unknwn-op"]) == 2
    assert capsys.readouterr().err == "tflint: error: no rule named 'unknwn-op' (did you mean 'unknown-op'?)\n"


def test_readme_documents_every_option():
    for action in _build_parser()._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and flag != "--help":
                assert f"`{flag}" in README, f"README's usage table does not mention {flag}"


COMMANDS = {
    "tflint": _build_parser,
    "tflint compat": _compat_parser,
    "tflint rules": lambda: _rules_parser("rules"),
    "tflint explain": lambda: _rules_parser("explain"),
    "tflint show": lambda: _review_parser("show"),
    "tflint diff": lambda: _review_parser("diff"),
    "tflint stats": lambda: _review_parser("stats"),
    "tflint git-setup": _git_setup_parser,
}
DOC_FILES = (REPO / "README.md", REPO / "SECURITY.md", *sorted((REPO / "docs").glob("*.md")))
DOCS = {path.name: path.read_text() for path in DOC_FILES}
# Flags of other programs the docs mention (the maintainer tools' are checked in tools/*.py).
OTHER_PROGRAMS = {"--strict": "mypy", "--saved_model_tags": "TensorFlow Serving's model server"}
FLAG = re.compile(r"(?<![\w-])--[a-z][\w-]*")


def _flags(parser) -> list[str]:
    return [flag for action in parser._actions for flag in action.option_strings if flag.startswith("--")]


@pytest.mark.parametrize("command", [command for command in COMMANDS if command != "tflint"])
def test_every_option_of_a_command_is_documented_with_the_command(command):
    # A paragraph of README's usage that names the command lists its options (tflint's own: the usage table).
    usage = README.split("\n## Usage\n", 1)[1].split("\n## ", 1)[0]
    about = "\n".join(block for block in usage.split("\n\n") if f"{command} " in block or f"`{command}`" in block)
    for flag in _flags(COMMANDS[command]()):
        if flag != "--help":
            assert re.search(rf"{re.escape(flag)}(?![\w-])", about), f"README's usage does not say `{command} {flag}`"


def test_every_documented_option_exists():
    ours = {flag for make in COMMANDS.values() for flag in _flags(make())}
    tools = "\n".join(path.read_text() for path in (REPO / "tools").glob("*.py"))
    for name, text in DOCS.items():
        for flag in FLAG.findall(text):
            known = flag in ours or f'"{flag}"' in tools or flag in OTHER_PROGRAMS
            assert known, f"{name} documents {flag}, which no tflint command (nor tool) has"


def test_documented_command_lines_use_that_commands_options():
    # `tflint compat --changed FILE...` in the text, `$ tflint --min-tf saved_model/` in an example.
    line = re.compile(
        r"(?:`|^\$? ?)(tflint(?: (?:compat|rules|explain|show|diff|stats|git-setup)(?![\w-]))?)((?: [^`\n]*)?)", re.M
    )
    seen = 0
    for name, text in DOCS.items():
        for command, rest in line.findall(text):
            known = _flags(COMMANDS[command]())
            for flag in FLAG.findall(rest.split("  #")[0]):
                seen += 1
                assert flag in known, f"{name}: `{command}{rest}`: {command} has no {flag}"
    assert seen > 20


def test_the_readme_example_is_what_tflint_prints(monkeypatch, capsys):
    # The first screen: the example graph exits 1 with the three findings "What it reports" shows.
    monkeypatch.chdir(REPO)
    shown = README.split("\n## What it reports\n\n```\n", 1)[1].split("```", 1)[0]
    assert main(["--color", "never", "examples/graphs/broken.pbtxt"]) == 1
    assert capsys.readouterr().out == shown


def test_readme_sections():
    for heading in (
        "## pre-commit",
        "## GitHub Actions",
        "## Python API",
        "## Output formats",
        "## Suppressing findings",
        "## Baseline",
        "## Plugins",
    ):
        assert f"\n{heading}" in README
    actions = README.split("## GitHub Actions", 1)[1].split("\n## ", 1)[0]
    assert (
        "github/codeql-action/upload-sarif" in actions
        and "--format sarif -o tflint.sarif" in actions
        and "security-events: write" in actions
    )
    python_api = README.split("## Python API", 1)[1].split("\n## ", 1)[0]
    import tflint
    from tflint.api import Report

    for name in re.findall(r"tflint\.(\w+)\(", python_api):
        assert hasattr(tflint, name), name
    for name in re.findall(r"report\.(\w+)\(", python_api):
        assert hasattr(Report, name), name


def test_pre_commit_hook_manifest():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [hook["id"] for hook in hooks] == ["tflint", "tflint-compat", "tflint-fix"]
    readme_ids = re.findall(r"- id: (\S+)", README.split("## pre-commit", 1)[1].split("\n## ", 1)[0])
    assert readme_ids == ["tflint", "tflint-compat", "tflint-fix"]
    compat_hook = hooks[1]
    assert (compat_hook["entry"], compat_hook["require_serial"]) == ("tflint compat --changed", True)
    versioned = re.compile(compat_hook["files"])
    for path in ("models/resnet/3/saved_model.pb", "3/variables/variables.index", "m/12/assets/vocab.txt"):
        assert versioned.search(path), path
    for path in ("models/resnet/saved_model.pb", "v3/saved_model.pb", "graph.pb"):
        assert not versioned.search(path), path
    hook = hooks[0]
    assert (hook["entry"], hook["language"], hook["require_serial"]) == ("tflint --force-exclude", "python", True)
    pattern = re.compile(hook["files"])
    for extension in GRAPH_EXTENSIONS:
        assert pattern.search(f"models/graph{extension}")
    for other in (
        "export/1/variables/variables.index",
        "export/1/variables/variables.data-00000-of-00001",
        "model.py",
        "graph.pbtxt.orig",
    ):
        assert not pattern.search(other), other
    clientlib = pytest.importorskip("pre_commit.clientlib")
    clientlib.load_manifest(str(REPO / ".pre-commit-hooks.yaml"))  # pre-commit's own validation


def test_the_version_is_written_once_and_released():
    """pyproject reads tflint.__version__; the README's snippets name the tag of a dated CHANGELOG release."""
    import tflint

    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'version = {attr = "tflint.__version__"}' in pyproject
    assert not re.search(r'^version\s*=\s*"', pyproject, re.M)  # no literal version
    released = re.findall(r"^## (\d+\.\d+\.\d+) - (\d{4}-\d{2}-\d{2})$", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert released and released[0][0] == tflint.__version__
    assert (REPO / "CHANGELOG.md").read_text().index("## Unreleased") < (REPO / "CHANGELOG.md").read_text().index(
        f"## {released[0][0]}"
    )
    tags = re.findall(r"rev: (\S+)", README) + re.findall(r"tflint@(v[\d.]+)", README)
    assert len(tags) >= 2 and set(tags) == {f"v{released[0][0]}"}


def test_every_bundled_data_file_is_package_data():
    """A data file beside the modules that pyproject's package-data misses would be absent from the wheel."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = setuptools["package-dir"]

    def folder_of(package: str):
        root = max((name for name in folders if package == name or package.startswith(name + ".")), key=len)
        return REPO / folders[root] / package[len(root) + 1 :].replace(".", "/")

    shipped = {
        path
        for package, patterns in setuptools["package-data"].items()
        for path in folder_of(package).iterdir()
        if any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns)
    }
    data = {
        path
        for folder in ("lint", "rules", "protos")
        for path in (REPO / folder).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }
    assert data - shipped == set()


def test_the_readme_config_example_has_every_key_and_is_valid(tmp_path):
    from tflint.config.settings import TOP_LEVEL_KEYS, load_config

    section = README.split("## Configuration: `.tflint.yaml`", 1)[1].split("\n## ", 1)[0]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert set(yaml.safe_load(example)) == set(TOP_LEVEL_KEYS)
    # The example plugin is not installed here (plugin discovery is isolated in tests): its lines aside.
    config_file = tmp_path / ".tflint.yaml"
    config_file.write_text("".join(line for line in example.splitlines(True) if "example" not in line))
    config = load_config(config_file)
    assert config.interface_for(str(tmp_path / "models" / "frozen_v2.pb")) is not None
    assert config.target_tf == ("2.4", "2.11")


def test_the_readme_names_the_release_that_first_registers_each_op_it_mentions():
    # The bundled registries come from the real wheels (tensorflow-cpu 2.9.3 has no DisableCopyOnRead, 2.10.1 has).
    from tflint.tf.releases import first_release_with_op

    claims = re.findall(r"needs TF ≥ (?P<release>[\d.]+): op (?P<op>\w+)", README)
    assert claims, "the README's --min-tf example is gone"
    for release, op in claims:
        assert first_release_with_op(op) == release, (op, release)


def test_the_readme_suppression_example_suppresses_something_with_every_directive():
    from conftest import lint_text

    section = README.split("## Suppressing findings", 1)[1]
    example = section.split("```\n", 2)[1]
    graph = re.sub(r"\s+<- .*", "", example)  # the README's annotations are not part of the file
    assert "tflint: file-ignore[" in graph and "tflint: ignore[" in graph
    assert [(f.rule, f.line) for f in lint_text(graph)] == []
    # and each directive is needed: without the directives, each suppressed rule reports
    bare = re.sub(r"#\s*tflint:.*", "", graph)
    assert {f.rule for f in lint_text(bare)} == {"deprecated-op", "unknown-op", "unknown-attr"}

"""Plugins: rules and OpDefs from entry points, loaded only when the config enables them, never from the cwd."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import REPO, lint_text, pinned

from tflint.cli import main
from tflint.config.settings import config_from_mapping
from tflint.errors import ConfigError

RULE_MODULE = '''
"""Nodes are not named 'forbidden'.

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  node { name: "forbidden" op: "NoOp" }   # {plugin}/no-forbidden
"""
from tflint.finding import Issue, Severity

ID = "{plugin}/no-forbidden"
CATEGORY = "naming"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS = {{"name": "forbidden"}}


def check(graph, options):
    for node in graph.all_nodes():
        if node.name == options["name"]:
            yield Issue(node, f"Node '{{node.name}}' has a forbidden name")
'''
OP_LIST = 'op { name: "AcmeOp" output_arg { name: "y" type: DT_FLOAT } }\n'
CUSTOM_OP_GRAPH = 'node { name: "forbidden" op: "AcmeOp" }\n'


def make_plugin(site, name="acme", *, rules=RULE_MODULE, op_defs=None, module_extra=""):
    """A fake installed distribution in `site`: a package `{name}_plugin` and its entry points."""
    package = site / f"{name}_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        f"OP_LIST_TEXT = {OP_LIST!r}\nOP_LIST_BYTES = OP_LIST_TEXT.encode()\n{module_extra}"
    )
    entry_points = []
    if rules is not None:
        (package / "rule.py").write_text(rules.replace("{plugin}", name).replace("{{", "{").replace("}}", "}"))
        entry_points.append(f"[tflint.rules]\n{name} = {name}_plugin.rule\n")
    if op_defs is not None:
        entry_points.append(f"[tflint.op_defs]\n{name} = {op_defs}\n")
    dist_info = site / f"{name}_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text("\n".join(entry_points))


@pytest.fixture
def site(tmp_path_factory, monkeypatch):
    site = tmp_path_factory.mktemp("site")  # installed outside the linted repository (tmp_path)
    monkeypatch.syspath_prepend(str(site))
    yield site
    for module in [m for m in sys.modules if m.endswith("_plugin") or "_plugin." in m]:
        del sys.modules[module]


def test_an_enabled_plugin_rule_runs_and_is_configurable(site):
    make_plugin(site, "acme")
    assert pinned(lint_text(CUSTOM_OP_GRAPH.replace("AcmeOp", "NoOp"), {"plugins": ["acme"]})) == [
        ("acme/no-forbidden", "forbidden", 1)
    ]
    findings = lint_text(
        'node { name: "x" op: "NoOp" }\n',
        {"plugins": ["acme"], "rules": {"acme/no-forbidden": {"level": "error", "name": "x"}}},
    )
    assert [(f.rule, str(f.severity), f.message) for f in findings] == [
        ("acme/no-forbidden", "error", "Node 'x' has a forbidden name")
    ]


def test_a_plugin_is_not_even_imported_unless_enabled(site):
    make_plugin(site, "acme", module_extra="raise RuntimeError('imported')\n")
    assert pinned(lint_text('node { name: "forbidden" op: "NoOp" }\n')) == []
    assert "acme_plugin" not in sys.modules
    with pytest.raises(ConfigError) as error:
        config_from_mapping({"rules": {"acme/no-forbidden": "error"}})
    assert (
        str(error.value)
        == "<config>: rules: unknown rule 'acme/no-forbidden'; enable its plugin with 'plugins: [acme]'"
    )


def test_plugin_op_defs_make_custom_ops_known(site):
    make_plugin(site, "acme", rules=None, op_defs="acme_plugin:OP_LIST_BYTES")
    graph = 'node { name: "a" op: "AcmeOp" }\n'
    assert pinned(lint_text(graph)) == [("unknown-op", "a", 1)]
    assert pinned(lint_text(graph, {"plugins": ["acme"]})) == []


@pytest.mark.parametrize(
    "extra, target",
    [
        pytest.param("def op_defs():\n    return OP_LIST_TEXT.encode()\n", "acme_plugin:op_defs", id="callable-bytes"),
        pytest.param(
            "import os\nPATH = os.path.join(os.path.dirname(__file__), 'ops.pbtxt')\nopen(PATH, 'w').write(OP_LIST_TEXT)\n",
            "acme_plugin:PATH",
            id="path",
        ),
        pytest.param(
            "from google.protobuf import text_format\nfrom tflint import protos\nMESSAGE = text_format.Parse(OP_LIST_TEXT, protos.OpList(), descriptor_pool=protos.POOL)\n",
            "acme_plugin:MESSAGE",
            id="message",
        ),
    ],
)
def test_op_defs_entry_point_forms(site, extra, target):
    make_plugin(site, "acme", rules=None, op_defs=target, module_extra=extra)
    assert pinned(lint_text('node { name: "a" op: "AcmeOp" }\n', {"plugins": ["acme"]})) == []


@pytest.mark.parametrize(
    "setup, message",
    [
        pytest.param(
            None, "<config>: plugins: plugin 'acme' is not installed (installed plugins: none)", id="not-installed"
        ),
        pytest.param(
            {"name": "acne"},
            "<config>: plugins: plugin 'acme' is not installed (did you mean 'acne'?) (installed plugins: acne)",
            id="typo",
        ),
        pytest.param(
            {"name": "acme", "rules": "import no_such_module\n"},
            "<config>: plugins: cannot load plugin 'acme' (tflint.rules = acme_plugin.rule): ModuleNotFoundError: No module named 'no_such_module'",
            id="import-error",
        ),
        pytest.param(
            {"name": "acme", "rules": RULE_MODULE.replace('ID = "{plugin}/no-forbidden"', 'ID = "no-forbidden"')},
            "<config>: plugins: plugin 'acme': rule 'no-forbidden': plugin rule ids are 'acme/kebab-case-name'",
            id="unnamespaced-id",
        ),
        pytest.param(
            {
                "name": "acme",
                "rules": RULE_MODULE.replace("DEFAULT_SEVERITY = Severity.WARNING", 'DEFAULT_SEVERITY = "warning"'),
            },
            "<config>: plugins: plugin 'acme': rule 'acme/no-forbidden': DEFAULT_SEVERITY must be a tflint.Severity",
            id="bad-severity",
        ),
        pytest.param(
            {"name": "acme", "rules": None, "op_defs": "acme_plugin:NOTHING"},
            "<config>: plugins: cannot load plugin 'acme' (tflint.op_defs = acme_plugin:NOTHING): AttributeError: module 'acme_plugin' has no attribute 'NOTHING'",
            id="missing-attribute",
        ),
    ],
)
def test_plugin_misuse_is_a_config_error(site, setup, message):
    if setup is not None:
        make_plugin(site, **setup)
    with pytest.raises(ConfigError) as error:
        config_from_mapping({"plugins": ["acme"]})
    assert str(error.value) == message


def test_bad_op_defs_from_a_plugin_are_exit_2(site, tmp_path, capsys, monkeypatch):
    make_plugin(site, "acme", rules=None, op_defs="acme_plugin:BAD", module_extra="BAD = b'op { nme: 1 }'\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tflint.yaml").write_text("plugins: [acme]\n")
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    assert main(["g.pbtxt"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tflint: error: plugin acme:1:") and "not an OpList" in err and err.count("\n") == 1


def test_a_crashing_plugin_rule_is_exit_2_naming_it(site, tmp_path, capsys, monkeypatch):
    make_plugin(
        site,
        "acme",
        rules=RULE_MODULE.replace(
            "    for node in graph.all_nodes():", "    1 / 0\n    for node in graph.all_nodes():"
        ),
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tflint.yaml").write_text("plugins: [acme]\n")
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    assert main(["g.pbtxt"]) == 2
    assert (
        capsys.readouterr().err
        == "tflint: error: internal error: internal error in rule acme/no-forbidden on g.pbtxt: ZeroDivisionError: division by zero (run with --debug for the traceback)\n"
    )


def test_plugin_not_installed_from_the_cli_is_exit_2_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tflint.yaml").write_text("plugins: [acme]\n")
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    assert main(["g.pbtxt"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tflint: error: {tmp_path / '.tflint.yaml'}: plugins: plugin 'acme' is not installed")
    assert err.count("\n") == 1


def test_plugins_are_never_taken_from_the_current_directory(tmp_path):
    """A checked-out pull request cannot ship a plugin: `python -m tflint` puts the cwd on sys.path."""
    work = tmp_path / "checkout"
    work.mkdir()
    make_plugin(work, "evil", module_extra=f"open({str(tmp_path / 'pwned')!r}, 'w').close()\n")
    (work / ".tflint.yaml").write_text("plugins: [evil]\n")
    (work / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    env = {**os.environ, "PYTHONPATH": ""}
    result = subprocess.run(
        [sys.executable, "-m", "tflint", "g.pbtxt"], cwd=work, capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 2
    assert "plugin 'evil' is not installed" in result.stderr
    assert not (tmp_path / "pwned").exists()
    # nor with the checkout on PYTHONPATH and tflint run from elsewhere
    env["PYTHONPATH"] = str(work)
    result = subprocess.run(
        [sys.executable, "-m", "tflint", str(work / "g.pbtxt")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2 and "plugin 'evil' is not installed" in result.stderr
    assert not (tmp_path / "pwned").exists()
    # the same package, installed elsewhere on the path, is found
    installed = tmp_path / "installed"
    installed.mkdir()
    make_plugin(installed, "evil")
    env["PYTHONPATH"] = str(installed)
    result = subprocess.run(
        [sys.executable, "-m", "tflint", "rules"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 0 and "evil/no-forbidden" not in result.stdout  # no config enables it here
    result = subprocess.run(
        [sys.executable, "-m", "tflint", "rules", "--config", str(work / ".tflint.yaml")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "evil/no-forbidden" in result.stdout


# --- the example plugin under examples/, installed for real ------------------------------------

EXAMPLE = REPO / "examples" / "tflint-plugin-example"
EXAMPLE_GRAPH = textwrap.dedent(
    """\
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "c"
      op: "ExampleCustomOp"
      input: "x"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "message"
      op: "Const"
      attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "hi" } } }
    }
    node {
      name: "p"
      op: "PrintV2"
      input: "message"
    }
    """
)


@pytest.fixture(scope="module")
def example_site(tmp_path_factory):
    """The example plugin pip-installed (from a copy: the build leaves files behind) into its own directory."""
    base = tmp_path_factory.mktemp("example-plugin")
    source = base / "src"
    shutil.copytree(EXAMPLE, source)
    target = base / "site"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        pytest.skip(
            f"cannot build the example plugin here: {result.stderr.strip().splitlines()[-1] if result.stderr.strip() else result.returncode}"
        )
    return target


def _tflint(args, cwd, site):
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1"}
    return subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "tflint"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_the_example_plugin_once_installed(example_site, tmp_path):
    (tmp_path / "g.pbtxt").write_text(EXAMPLE_GRAPH)
    before = _tflint(["g.pbtxt"], tmp_path, example_site)
    assert before.returncode == 1
    assert (
        before.stdout.splitlines()[0]
        == "g.pbtxt:7:3: error: Node 'c' uses op 'ExampleCustomOp', which is not registered [unknown-op]"
    )
    assert "example/" not in _tflint(["rules"], tmp_path, example_site).stdout

    (tmp_path / ".tflint.yaml").write_text("plugins: [example]\n")
    after = _tflint(["g.pbtxt"], tmp_path, example_site)
    assert after.returncode == 0, after.stdout + after.stderr
    assert after.stdout.splitlines() == [
        "g.pbtxt:19:3: warning: Node 'p' is a debug PrintV2 op; remove it before serving [example/no-print]",
        "Found 1 warning in 1 of 1 file.",
    ]
    listed = _tflint(["rules"], tmp_path, example_site)
    rows = [line.split(maxsplit=3) for line in listed.stdout.splitlines()]
    assert ["example/no-print", "serving", "warning", "Graphs meant for serving contain no debug Print ops."] in rows
    explained = _tflint(["explain", "example/no-print"], tmp_path, example_site)
    assert explained.stdout.startswith(
        "example/no-print (serving, default level: warning)\n\nGraphs meant for serving contain no debug Print ops."
    )
    (tmp_path / ".tflint.yaml").write_text("plugins: [example]\nrules:\n  example/no-print: error\n")
    assert _tflint(["g.pbtxt"], tmp_path, example_site).returncode == 1


def test_the_example_plugin_documents_itself_truthfully(example_site, monkeypatch):
    """Its docstring examples hold, exactly as built-in rules' do."""
    monkeypatch.syspath_prepend(str(example_site))
    from tflint.report.rulesdoc import examples_of

    module = __import__("tflint_plugin_example.no_print", fromlist=["ID"])
    for kind, text in examples_of(module):
        found = [f.line for f in lint_text(text + "\n", {"plugins": ["example"]}) if f.rule == "example/no-print"]
        assert found == ([] if kind == "Okay" else [1])


def test_a_missing_plugin_lists_the_installed_ones_once(site):
    make_plugin(site, "example")
    with pytest.raises(ConfigError) as error:
        config_from_mapping({"plugins": ["acme"]})
    assert str(error.value) == "<config>: plugins: plugin 'acme' is not installed (installed plugins: example)"

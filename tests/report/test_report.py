"""Output formats: exact output for a small set of findings, SARIF against the official schema, -o."""

from __future__ import annotations

import json
import os
import re
import stat
import textwrap
import types

import pytest
from conftest import REPO

from tflint.cli import main
from tflint.finding import Finding, Severity
from tflint.report import renderer, resolve_format
from tflint.report.identity import fingerprints, repo_path, subject
from tflint.report.output import write_atomically
from tflint.report.rulesdoc import HOME_URL, RULES_URL
from tflint.report.summary import Summary

# OASIS's SARIF 2.1.0 schema (from oasis-tcs/sarif-spec, Schemata/), kept beside the tests.
SARIF_SCHEMA = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"


def _rule(rule_id: str, category: str, level: Severity, doc: str) -> types.ModuleType:
    module = types.ModuleType(f"tflint.rules.{rule_id.replace('-', '_')}", doc)
    module.ID, module.CATEGORY, module.DEFAULT_SEVERITY, module.OPTIONS = rule_id, category, level, {}
    return module


# A registry of two small rules, so that whole documents can be pinned without restating real rule docs.
RULES = {
    "unknown-op": _rule(
        "unknown-op",
        "schema",
        Severity.ERROR,
        'Every op is registered.\n\nTensorFlow refuses unknown ops.\n\nFail:\n  node { name: "a" op: "Nope" }   # unknown-op\n',
    ),
    "unknown-attr": _rule(
        "unknown-attr", "schema", Severity.WARNING, "Every attr is defined.\n\nTensorFlow ignores unknown attrs.\n"
    ),
}
FINDINGS = sorted(
    [
        Finding(
            "unknown-op",
            Severity.ERROR,
            "Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?)",
            "models/g.pbtxt",
            6,
            3,
            "b",
        ),
        Finding(
            "unknown-attr",
            Severity.WARNING,
            "Node 'b' has attr 'colour', which op 'Idenity' does not define",
            "models/g.pbtxt",
            8,
            5,
            "b",
        ),
        Finding(
            "unknown-op",
            Severity.ERROR,
            "Node 'c' uses op 'Foo', which is not registered",
            "models/f.pb",
            None,
            None,
            "c",
            function="fn",
        ),
    ],
    key=Finding.sort_key,
)


@pytest.fixture
def summary(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return Summary(files=3, paths=("models/f.pb", "models/g.pbtxt", "models/ok.pbtxt"), root=str(tmp_path), rules=RULES)


def test_text(summary):
    assert renderer("text")(FINDINGS, summary) == textwrap.dedent(
        """\
        models/f.pb: error: Node 'c' uses op 'Foo', which is not registered (in function 'fn') [unknown-op]
        models/g.pbtxt:6:3: error: Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?) [unknown-op]
        models/g.pbtxt:8:5: warning: Node 'b' has attr 'colour', which op 'Idenity' does not define [unknown-attr]
        Found 2 errors, 1 warning in 2 of 3 files.
        """
    )


def test_text_statistics_and_baselined(summary):
    from tflint.records import replace

    output = renderer("text")(FINDINGS, replace(summary, statistics=True, baselined=4))
    assert output.splitlines()[3:] == [
        "",
        "2  unknown-op    error",
        "1  unknown-attr  warning",
        "",
        "Found 2 errors, 1 warning in 2 of 3 files. 4 baselined findings not shown.",
    ]
    assert (
        renderer("text")([], replace(summary, baselined=1))
        == "All checks passed (3 files). 1 baselined finding not shown.\n"
    )


def test_text_colour(summary):
    from tflint.records import replace

    line = renderer("text")(FINDINGS[:1], replace(summary, color=True)).splitlines()[0]
    assert (
        line
        == "\033[1mmodels/f.pb\033[0m: \033[31merror\033[0m: Node 'c' uses op 'Foo', which is not registered (in function 'fn') [unknown-op]"
    )


def test_json(summary):
    prints = fingerprints(FINDINGS, summary.root)
    assert renderer("json")(FINDINGS, summary) == textwrap.dedent(
        f"""\
        [
          {{
            "rule": "unknown-op",
            "category": "schema",
            "severity": "error",
            "message": "Node 'c' uses op 'Foo', which is not registered",
            "file": "models/f.pb",
            "line": null,
            "column": null,
            "node": "c",
            "function": "fn",
            "graph": null,
            "fingerprint": "{prints[0]}",
            "url": "{RULES_URL}#unknown-op"
          }},
          {{
            "rule": "unknown-op",
            "category": "schema",
            "severity": "error",
            "message": "Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?)",
            "file": "models/g.pbtxt",
            "line": 6,
            "column": 3,
            "node": "b",
            "function": null,
            "graph": null,
            "fingerprint": "{prints[1]}",
            "url": "{RULES_URL}#unknown-op"
          }},
          {{
            "rule": "unknown-attr",
            "category": "schema",
            "severity": "warning",
            "message": "Node 'b' has attr 'colour', which op 'Idenity' does not define",
            "file": "models/g.pbtxt",
            "line": 8,
            "column": 5,
            "node": "b",
            "function": null,
            "graph": null,
            "fingerprint": "{prints[2]}",
            "url": "{RULES_URL}#unknown-attr"
          }}
        ]
        """
    )


def test_fingerprints_hash_file_rule_and_node_not_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = Finding("unknown-op", Severity.ERROR, "m", "models/g.pbtxt", 6, 3, "b")
    moved = Finding("unknown-op", Severity.ERROR, "other words", "models/g.pbtxt", 60, 1, "b")
    assert fingerprints([first], "/repo") == fingerprints([moved], "/repo")
    assert re.fullmatch(r"[0-9a-f]{32}:0", fingerprints([first], "/repo")[0])
    # The same key twice gets an occurrence counter; another node, rule or file another hash.
    twice = fingerprints([first, moved], "/repo")
    assert [p.split(":")[1] for p in twice] == ["0", "1"] and twice[0].split(":")[0] == twice[1].split(":")[0]
    others = [
        Finding("unknown-op", Severity.ERROR, "m", "models/g.pbtxt", 6, 3, "c"),
        Finding("unknown-attr", Severity.ERROR, "m", "models/g.pbtxt", 6, 3, "b"),
        Finding("unknown-op", Severity.ERROR, "m", "models/h.pbtxt", 6, 3, "b"),
        Finding("unknown-op", Severity.ERROR, "m", "models/g.pbtxt", 6, 3, "b", function="f"),
    ]
    hashes = {p.split(":")[0] for p in fingerprints([first, *others], "/repo")}
    assert len(hashes) == 5
    # Relative to the repository root: the same file named two ways has one fingerprint.
    absolute = Finding("unknown-op", Severity.ERROR, "m", str(tmp_path / "models" / "g.pbtxt"), 6, 3, "b")
    assert fingerprints([first], str(tmp_path)) == fingerprints([absolute], str(tmp_path))


@pytest.mark.parametrize(
    "finding, expected",
    [
        pytest.param(Finding("r", Severity.ERROR, "m", "f", node="a/b"), "a/b", id="node"),
        pytest.param(
            Finding("r", Severity.ERROR, "m", "f", node="a", function="fn"), "function fn > node a", id="function"
        ),
        pytest.param(
            Finding("r", Severity.ERROR, "m", "f", node="a", graph="meta graph [serve]"),
            "meta graph [serve] > node a",
            id="meta-graph",
        ),
        pytest.param(Finding("r", Severity.ERROR, "m", "f", function="fn"), "function fn", id="function-only"),
        pytest.param(Finding("r", Severity.ERROR, "m", "f"), "", id="file"),
    ],
)
def test_subject(finding, expected):
    assert subject(finding) == expected


def test_repo_path(tmp_path):
    assert repo_path(str(tmp_path / "a" / "g.pb"), str(tmp_path)) == "a/g.pb"
    assert repo_path("/elsewhere/g.pb", str(tmp_path)) == "/elsewhere/g.pb"
    assert repo_path("<stdin>", str(tmp_path)) == "<stdin>"


def test_sarif(summary):
    log = json.loads(renderer("sarif")(FINDINGS, summary))
    prints = fingerprints(FINDINGS, summary.root)
    driver = log["runs"][0]["tool"]["driver"]
    assert (log["$schema"], log["version"], driver["name"], driver["semanticVersion"]) == (
        "https://json.schemastore.org/sarif-2.1.0.json",
        "2.1.0",
        "tflint",
        "0.1.0",
    )
    assert driver["rules"] == [
        {
            "id": "unknown-attr",
            "name": "UnknownAttr",
            "shortDescription": {"text": "Every attr is defined."},
            "fullDescription": {"text": "TensorFlow ignores unknown attrs."},
            "help": {
                "text": "Every attr is defined.\n\nTensorFlow ignores unknown attrs.",
                "markdown": "**Every attr is defined.**\n\nCategory: `schema`. Default level: `warning`.\n\nTensorFlow ignores unknown attrs.",
            },
            "defaultConfiguration": {"level": "warning"},
            "properties": {"tags": ["schema"]},
            "helpUri": f"{RULES_URL}#unknown-attr",
        },
        {
            "id": "unknown-op",
            "name": "UnknownOp",
            "shortDescription": {"text": "Every op is registered."},
            "fullDescription": {"text": "TensorFlow refuses unknown ops."},
            "help": {
                "text": 'Every op is registered.\n\nTensorFlow refuses unknown ops.\n\nFail:\n  node { name: "a" op: "Nope" }   # unknown-op',
                "markdown": '**Every op is registered.**\n\nCategory: `schema`. Default level: `error`.\n\nTensorFlow refuses unknown ops.\n\nFail:\n\n```protobuf\nnode { name: "a" op: "Nope" }   # unknown-op\n```',
            },
            "defaultConfiguration": {"level": "error"},
            "properties": {"tags": ["schema"]},
            "helpUri": f"{RULES_URL}#unknown-op",
        },
    ]
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    assert log["runs"][0]["results"] == [
        {
            "ruleId": "unknown-op",
            "ruleIndex": 1,
            "level": "error",
            "message": {"text": "Node 'c' uses op 'Foo', which is not registered"},
            "locations": [
                {
                    # binary: no lines, so line 1 and the node as a logical location
                    "physicalLocation": {"artifactLocation": {"uri": "models/f.pb"}, "region": {"startLine": 1}},
                    "logicalLocations": [{"name": "c", "fullyQualifiedName": "fn/c", "kind": "object"}],
                }
            ],
            "partialFingerprints": {"primaryLocationLineHash": prints[0]},
        },
        {
            "ruleId": "unknown-op",
            "ruleIndex": 1,
            "level": "error",
            "message": {"text": "Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?)"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "models/g.pbtxt"},
                        "region": {"startLine": 6, "startColumn": 3},
                    },
                    "logicalLocations": [{"name": "b", "fullyQualifiedName": "b", "kind": "object"}],
                }
            ],
            "partialFingerprints": {"primaryLocationLineHash": prints[1]},
        },
        {
            "ruleId": "unknown-attr",
            "ruleIndex": 0,
            "level": "warning",
            "message": {"text": "Node 'b' has attr 'colour', which op 'Idenity' does not define"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "models/g.pbtxt"},
                        "region": {"startLine": 8, "startColumn": 5},
                    },
                    "logicalLocations": [{"name": "b", "fullyQualifiedName": "b", "kind": "object"}],
                }
            ],
            "partialFingerprints": {"primaryLocationLineHash": prints[2]},
        },
    ]


def test_sarif_help_uri_is_the_rules_section_of_the_docs_or_a_plugins_own_url(summary):
    plugin_rule = _rule("acme/x", "acme", Severity.INFO, "Acme's rule.\n")
    plugin_rule.__name__ = "acme_tflint.x"
    plugin_rule.URL = "https://acme.example/x"
    undocumented = _rule("acme/y", "acme", Severity.INFO, "Acme's other rule.\n")
    undocumented.__name__ = "acme_tflint.y"
    rules = {**RULES, "acme/x": plugin_rule, "acme/y": undocumented}
    log = json.loads(renderer("sarif")([], Summary(files=0, rules=rules)))
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == HOME_URL
    assert [(r["id"], r["name"], r.get("helpUri"), r["defaultConfiguration"]["level"]) for r in driver["rules"]] == [
        ("acme/x", "AcmeX", "https://acme.example/x", "note"),
        ("acme/y", "AcmeY", None, "note"),
        ("unknown-attr", "UnknownAttr", f"{RULES_URL}#unknown-attr", "warning"),
        ("unknown-op", "UnknownOp", f"{RULES_URL}#unknown-op", "error"),
    ]


def test_every_built_in_rule_has_a_help_uri_and_a_name_that_is_not_its_id():
    from tflint.rules import all_rules

    log = json.loads(renderer("sarif")([], Summary(files=0, rules=all_rules())))
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert len(rules) == len(all_rules())
    for rule in rules:
        assert rule["helpUri"] == f"{RULES_URL}#{rule['id']}"
        if rule["id"] == "cycle":  # SARIF: a name that differs from the id only in case is left out
            assert "name" not in rule
        else:
            assert rule["name"].isalnum() and rule["name"].lower() != rule["id"].lower(), rule["name"]
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"], rule["id"]


def test_github(summary):
    assert renderer("github")(FINDINGS, summary) == textwrap.dedent(
        """\
        ::error file=models/f.pb,title=tflint (unknown-op)::Node 'c' uses op 'Foo', which is not registered (in function 'fn') [unknown-op]
        ::error file=models/g.pbtxt,line=6,col=3,title=tflint (unknown-op)::Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?) [unknown-op]
        ::warning file=models/g.pbtxt,line=8,col=5,title=tflint (unknown-attr)::Node 'b' has attr 'colour', which op 'Idenity' does not define [unknown-attr]
        ::notice title=tflint::Found 2 errors, 1 warning in 2 of 3 files.
        """
    )


def test_github_escapes_and_tells_of_its_annotation_limit(summary):
    odd = Finding("unknown-op", Severity.INFO, "100% wrong\nsecond line", "models/a,b:c.pbtxt", 1, 1, "n")
    output = renderer("github")([odd] * 11, summary).splitlines()
    assert (
        output[0]
        == "::notice file=models/a%2Cb%3Ac.pbtxt,line=1,col=1,title=tflint (unknown-op)::100%25 wrong\\nsecond line [unknown-op]"
    )
    assert output[-1] == (
        "::notice title=tflint::Found 11 infos in 0 of 3 files. GitHub shows only 10 annotations of each kind per step: "
        "see the log, or upload --format sarif to code scanning."
    )


def test_junit(summary):
    assert renderer("junit")(FINDINGS, summary) == textwrap.dedent(
        """\
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="tflint" tests="4" failures="3" errors="0">
          <testsuite name="models/f.pb" tests="1" failures="1" errors="0" skipped="0">
            <testcase classname="models/f.pb" name="unknown-op (c)">
              <failure type="error" message="Node 'c' uses op 'Foo', which is not registered">models/f.pb: error: Node 'c' uses op 'Foo', which is not registered (in function 'fn') [unknown-op]</failure>
            </testcase>
          </testsuite>
          <testsuite name="models/g.pbtxt" tests="2" failures="2" errors="0" skipped="0">
            <testcase classname="models/g.pbtxt" name="unknown-op (b)">
              <failure type="error" message="Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?)">models/g.pbtxt:6:3: error: Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?) [unknown-op]</failure>
            </testcase>
            <testcase classname="models/g.pbtxt" name="unknown-attr (b)">
              <failure type="warning" message="Node 'b' has attr 'colour', which op 'Idenity' does not define">models/g.pbtxt:8:5: warning: Node 'b' has attr 'colour', which op 'Idenity' does not define [unknown-attr]</failure>
            </testcase>
          </testsuite>
          <testsuite name="models/ok.pbtxt" tests="1" failures="0" errors="0" skipped="0">
            <testcase classname="models/ok.pbtxt" name="tflint"/>
          </testsuite>
        </testsuites>
        """
    )


def test_junit_escapes_xml(summary):
    import xml.etree.ElementTree as ET

    odd = Finding("unknown-op", Severity.ERROR, 'op "<&>"', "models/g.pbtxt", 1, 1, "a<b")
    root = ET.fromstring(renderer("junit")([odd], summary))
    case = root.find("./testsuite[@name='models/g.pbtxt']/testcase")
    assert case.get("name") == "unknown-op (a<b)"
    assert case.find("failure").get("message") == 'op "<&>"'


@pytest.mark.parametrize(
    "environ, expected",
    [
        pytest.param({"GITHUB_ACTIONS": "true"}, "github", id="actions"),
        pytest.param({}, "text", id="elsewhere"),
        pytest.param({"GITHUB_ACTIONS": "false"}, "text", id="off"),
    ],
)
def test_auto_format(environ, expected):
    assert resolve_format("auto", environ) == expected
    assert resolve_format("json", environ) == "json"


# --- end to end: real rules, real files --------------------------------------------------------

TEXT_GRAPH = 'node {\n  name: "a"\n  op: "NoOp"\n}\nnode {\n  name: "b"\n  op: "Idenity"\n}\n'


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository with one text and one binary graph, as the current directory."""
    from tflint import protos

    (tmp_path / ".git").mkdir()
    models = tmp_path / "models"
    models.mkdir()
    (models / "g.pbtxt").write_text(TEXT_GRAPH)
    graph = protos.GraphDef()
    graph.node.add(name="x", op="NoSuchOp")
    library = graph.library.function.add()
    library.signature.name = "fn"
    library.node_def.add(name="inner", op="AlsoMissing")
    graph.node.add(name="call", op="fn")  # fn runs: the problem inside it is an error
    (models / "f.pb").write_bytes(graph.SerializeToString())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _sarif_validator():
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text())
    if "properties" not in schema and "Root" in schema.get("definitions", {}):
        # This copy keeps the log's own schema under definitions.Root, leaving the top level
        # empty: validating against the top level would accept anything.
        schema = {**schema, "$ref": "#/definitions/Root"}
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def test_sarif_from_the_cli_is_valid_against_the_schema(repo, capsys):
    validator = _sarif_validator()
    code = main(["--format", "sarif", "models"])
    log = json.loads(capsys.readouterr().out)
    assert code == 1
    errors = sorted(validator.iter_errors(log), key=str)
    assert errors == [], errors[0].message if errors else ""
    results = log["runs"][0]["results"]
    assert [
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"],
        )
        for r in results
    ] == [
        ("unknown-op", "models/f.pb", {"startLine": 1}),
        ("unknown-op", "models/f.pb", {"startLine": 1}),
        ("unknown-op", "models/g.pbtxt", {"startLine": 6, "startColumn": 3}),
    ]
    assert [r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in results] == ["x", "fn/inner", "b"]
    # every finding in the binary file is told apart by its own fingerprint
    assert len({r["partialFingerprints"]["primaryLocationLineHash"] for r in results}) == 3
    rule_ids = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rule_ids[r["ruleIndex"]] == r["ruleId"] for r in results)


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda log: log["runs"][0]["results"][0].pop("message"), id="result-without-message"),
        pytest.param(lambda log: log.update(version="2.0.0"), id="wrong-version"),
        pytest.param(
            lambda log: log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].update(startLine=0),
            id="line-0",
        ),
        pytest.param(lambda log: log["runs"][0]["results"][0].update(level="fatal"), id="unknown-level"),
    ],
)
def test_sarif_schema_test_has_teeth(repo, capsys, spoil):
    """The schema check would catch a broken log: each of these spoils fails validation."""
    validator = _sarif_validator()
    main(["--format", "sarif", "models"])
    log = json.loads(capsys.readouterr().out)
    spoil(log)
    assert list(validator.iter_errors(log))


def test_output_file_is_written_atomically_and_stdout_stays_empty(repo, capsys):
    target = repo / "out" / "report.json"
    target.parent.mkdir()
    target.write_text("previous")
    code = main(["--format", "json", "-o", str(target), "models"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    assert [f["node"] for f in json.loads(target.read_text())] == ["x", "inner", "b"]
    assert os.listdir(target.parent) == ["report.json"]  # no temporary file left behind


def test_output_file_in_a_missing_directory_is_exit_2(repo, capsys):
    code = main(["-o", str(repo / "nope" / "report.txt"), "models"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.startswith(f"tflint: error: {repo / 'nope' / 'report.txt'}: cannot write report:")


def test_write_atomically_keeps_the_old_file_when_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "report.sarif"
    target.write_text("old")
    target.chmod(0o640)

    def crash(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["report.sarif"]
    monkeypatch.undo()
    write_atomically(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file keeps its permissions


def test_statistics_never_enter_machine_output(repo, capsys):
    code = main(["--format", "json", "--statistics", "models"])
    captured = capsys.readouterr()
    assert code == 1
    assert len(json.loads(captured.out)) == 3
    assert captured.err == "3  unknown-op  error\n"


def test_auto_format_under_github_actions(repo, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    main(["--format", "auto", "models/g.pbtxt"])
    assert capsys.readouterr().out.splitlines()[0] == (
        "::error file=models/g.pbtxt,line=6,col=3,title=tflint (unknown-op)::Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?) [unknown-op]"
    )
    monkeypatch.delenv("GITHUB_ACTIONS")
    main(["--format", "auto", "models/g.pbtxt"])
    assert capsys.readouterr().out.startswith("models/g.pbtxt:6:3: error:")


def test_report_api_renders_every_format(repo):
    import tflint

    report = tflint.lint_paths(["models"])
    assert [f.node for f in report.findings] == ["x", "inner", "b"]
    assert (
        json.loads(report.to_sarif())["runs"][0]["results"][2]["locations"][0]["physicalLocation"]["artifactLocation"][
            "uri"
        ]
        == "models/g.pbtxt"
    )
    assert report.render("junit").count("<failure") == 3
    assert [f["fingerprint"] for f in json.loads(report.to_json())] == fingerprints(report.findings, str(repo))


# Pinned: a change here changes every user's SARIF alert identities and baselines' neighbours.
FINGERPRINT_X = "a03380a68da34d3884af7275226e3315:0"
FINGERPRINT_INNER = "63141c1924bd5201f1b90311a276e7de:0"
FINGERPRINT_B = "ffa23cd6a5fe1bc51b64fff6d3892bd2:0"
X = "Node 'x' uses op 'NoSuchOp', which is not registered"
INNER = "Node 'inner' uses op 'AlsoMissing', which is not registered"
B = "Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?)"
SMALL_GRAPH_OUTPUT = {
    "text": f"""\
models/f.pb: error: {X} [unknown-op]
models/f.pb: error: {INNER} (in function 'fn') [unknown-op]
models/g.pbtxt:6:3: error: {B} [unknown-op]
Found 3 errors in 2 of 2 files.
""",
    "json": json.dumps(
        [
            {
                "rule": "unknown-op",
                "category": "schema",
                "severity": "error",
                "message": X,
                "file": "models/f.pb",
                "line": None,
                "column": None,
                "node": "x",
                "function": None,
                "graph": None,
                "fingerprint": FINGERPRINT_X,
                "url": f"{RULES_URL}#unknown-op",
            },
            {
                "rule": "unknown-op",
                "category": "schema",
                "severity": "error",
                "message": INNER,
                "file": "models/f.pb",
                "line": None,
                "column": None,
                "node": "inner",
                "function": "fn",
                "graph": None,
                "fingerprint": FINGERPRINT_INNER,
                "url": f"{RULES_URL}#unknown-op",
            },
            {
                "rule": "unknown-op",
                "category": "schema",
                "severity": "error",
                "message": B,
                "file": "models/g.pbtxt",
                "line": 6,
                "column": 3,
                "node": "b",
                "function": None,
                "graph": None,
                "fingerprint": FINGERPRINT_B,
                "url": f"{RULES_URL}#unknown-op",
            },
        ],
        indent=2,
    )
    + "\n",
    "github": f"""\
::error file=models/f.pb,title=tflint (unknown-op)::{X} [unknown-op]
::error file=models/f.pb,title=tflint (unknown-op)::{INNER} (in function 'fn') [unknown-op]
::error file=models/g.pbtxt,line=6,col=3,title=tflint (unknown-op)::{B} [unknown-op]
::notice title=tflint::Found 3 errors in 2 of 2 files.
""",
    "junit": f"""\
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="tflint" tests="3" failures="3" errors="0">
  <testsuite name="models/f.pb" tests="2" failures="2" errors="0" skipped="0">
    <testcase classname="models/f.pb" name="unknown-op (x)">
      <failure type="error" message="{X}">models/f.pb: error: {X} [unknown-op]</failure>
    </testcase>
    <testcase classname="models/f.pb" name="unknown-op (inner)">
      <failure type="error" message="{INNER}">models/f.pb: error: {INNER} (in function 'fn') [unknown-op]</failure>
    </testcase>
  </testsuite>
  <testsuite name="models/g.pbtxt" tests="1" failures="1" errors="0" skipped="0">
    <testcase classname="models/g.pbtxt" name="unknown-op (b)">
      <failure type="error" message="{B}">models/g.pbtxt:6:3: error: {B} [unknown-op]</failure>
    </testcase>
  </testsuite>
</testsuites>
""",
}


@pytest.mark.parametrize("fmt", sorted(SMALL_GRAPH_OUTPUT))
def test_every_format_on_a_small_graph(repo, capsys, fmt):
    assert main(["--format", fmt, "models"]) == 1
    assert capsys.readouterr().out == SMALL_GRAPH_OUTPUT[fmt]


def test_sarif_on_a_small_graph(repo, capsys):
    assert main(["--format", "sarif", "models"]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    index = [rule["id"] for rule in run["tool"]["driver"]["rules"]].index("unknown-op")

    def result(message, uri, region, name, qualified, fingerprint):
        return {
            "ruleId": "unknown-op",
            "ruleIndex": index,
            "level": "error",
            "message": {"text": message},
            "locations": [
                {
                    "physicalLocation": {"artifactLocation": {"uri": uri}, "region": region},
                    "logicalLocations": [{"name": name, "fullyQualifiedName": qualified, "kind": "object"}],
                }
            ],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint},
        }

    assert run["results"] == [
        result(X, "models/f.pb", {"startLine": 1}, "x", "x", FINGERPRINT_X),
        result(INNER, "models/f.pb", {"startLine": 1}, "inner", "fn/inner", FINGERPRINT_INNER),
        result(B, "models/g.pbtxt", {"startLine": 6, "startColumn": 3}, "b", "b", FINGERPRINT_B),
    ]
    from tflint.rules import RULES

    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == sorted(RULES)


def test_sarif_and_json_carry_unsafe_op_security_severity_and_properties(tmp_path, monkeypatch, capsys):
    """GitHub code scanning ranks by `security-severity`; JSON consumers read trigger, capability and path."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".tflint.yaml").write_text("extends: serving\n")
    (tmp_path / "m.pbtxt").write_text(
        'node { name: "p" op: "Const" attr { key: "dtype" value { type: DT_STRING } } '
        'attr { key: "value" value { tensor { dtype: DT_STRING string_val: "/etc/passwd" } } } }\n'
        'node { name: "r" op: "ReadFile" input: "p" }\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["--format", "sarif", "--select", "unsafe-op", "m.pbtxt"]) == 1
    log = json.loads(capsys.readouterr().out)
    errors = sorted(_sarif_validator().iter_errors(log), key=str)
    assert errors == [], errors[0].message if errors else ""
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert "security-severity" not in rules["unknown-op"]["properties"]
    rule = rules["unsafe-op"]
    assert rule["properties"] == {"tags": ["serving", "security"], "security-severity": "9.8"}
    (result,) = log["runs"][0]["results"]
    assert result["properties"]["security-severity"] == "8.5"
    assert (result["properties"]["trigger"], result["properties"]["capability"]) == ("run", "file-read")
    assert main(["--format", "json", "--select", "unsafe-op", "m.pbtxt"]) == 1
    (record,) = json.loads(capsys.readouterr().out)
    assert list(record)[-1] == "properties"
    assert record["properties"]["path"] == ["run", "node 'r'"]
    assert record["properties"]["target-values"] == ["/etc/passwd"]
    assert record["properties"]["security-severity"] == 8.5

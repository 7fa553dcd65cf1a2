"""Hardening (issue 15): a hostile model, config or environment cannot blind, exhaust or hijack tflint.

Each test reproduces one numbered item of the issue with a tiny input built here,
and pins what tflint does now. Sizes are asserted structurally (finding counts,
output length), never by timing; tools/bench_hostile.py measures memory and time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from serving_graphs import meta, node, placeholder, saved_model, signature, tensor

import tflint
from tflint import protos
from tflint.cli import main
from tflint.escape import escape, quote

REPO = Path(__file__).resolve().parent.parent
UNKNOWN_AND_DANGLING = b'node { name: "a" op: "NotAnOp" input: "missing" }\n'


def _rules(report_or_error) -> list[str]:
    report = getattr(report_or_error, "report", report_or_error)
    return sorted(finding.rule for finding in report.findings)


# 1. validate(bytes) / lint_graph(bytes) read text given as bytes; empty or junk input never passes.


def test_text_given_as_bytes_is_read_as_text():
    report = tflint.lint_graph(UNKNOWN_AND_DANGLING)
    assert [(f.rule, f.line) for f in report.findings] == [("unknown-op", 1), ("unresolved-input", 1)]
    with pytest.raises(tflint.GraphValidationError) as raised:
        tflint.validate(UNKNOWN_AND_DANGLING)
    assert _rules(raised.value) == ["unknown-op", "unresolved-input"]


@pytest.mark.parametrize(
    "data, rule, reason",
    [
        pytest.param(b"", "empty-graph", "The graph is empty", id="empty"),
        pytest.param(b" \n", "empty-graph", "The graph is empty", id="blank"),
        pytest.param(b"junk", "invalid-graph", 'has no field named "junk"', id="junk-text"),
        pytest.param(b"\x0a\xff\xff\xff\xff\x0f", "invalid-graph", "not a valid binary", id="junk-binary"),
    ],
)
def test_validate_fails_input_without_a_graph(data, rule, reason):
    with pytest.raises(tflint.GraphValidationError) as raised:
        tflint.validate(data)
    assert _rules(raised.value) == [rule]
    assert reason in raised.value.findings[0].message
    # lint_graph reports the same, at the rule's own level (an empty graph: a warning, as TensorFlow imports it)
    assert _rules(tflint.lint_graph(data)) == [rule]


def test_validate_fails_an_empty_graph_file(tmp_path):
    (tmp_path / "g.pbtxt").write_bytes(b"")
    with pytest.raises(tflint.GraphValidationError, match="empty-graph"):
        tflint.validate(tmp_path / "g.pbtxt")
    assert tflint.validate(tmp_path / "g.pbtxt", config={"rules": {"empty-graph": "warning"}}).ok


# 2. A model cannot switch off its own checks: validate ignores configs and suppressions beside it.

READS_A_FILE = saved_model(
    meta(
        placeholder("x"),
        node(
            "path",
            "Const",
            attrs='attr { key: "dtype" value { type: DT_STRING } } '
            'attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "/etc/passwd" } } } ',
        ),
        node("contents", "ReadFile", "path"),
        signatures=[signature("serving_default", tensor("inputs", "x", "x:0"), tensor("outputs", "y", "contents:0"))],
        tags=["serve"],
    )
)


@pytest.mark.parametrize(
    "config_text, model_text",
    [
        pytest.param("rules: {unsafe-op: off}\n", READS_A_FILE, id="config-beside-the-model"),
        pytest.param(None, "# tflint: file-ignore[unsafe-op]\n" + READS_A_FILE, id="inline-file-ignore"),
    ],
)
def test_a_model_cannot_switch_off_its_own_checks(tmp_path, config_text, model_text):
    model = tmp_path / "model"
    model.mkdir()
    (model / "saved_model.pbtxt").write_text(model_text)
    if config_text is not None:
        (model / ".tflint.yaml").write_text(config_text)
    with pytest.raises(tflint.GraphValidationError) as raised:
        tflint.validate(model)
    assert "unsafe-op" in _rules(raised.value)
    with pytest.raises(tflint.GraphValidationError):
        tflint.validate((model / "saved_model.pbtxt").read_bytes())
    # Opting in trusts the model's own configuration, as lint_file always does.
    tflint.validate(model, trust_model_config=True)
    assert "unsafe-op" not in _rules(tflint.lint_file(model))


def test_validate_still_applies_the_config_it_is_given(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "saved_model.pbtxt").write_text(READS_A_FILE)
    tflint.validate(model, config={"rules": {"unsafe-op": "off"}})


# 3. A length attr claims more than tflint spells out: a warning, not gigabytes.

SPLIT_AXIS = (
    'node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } '
    'attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }\n'
)


@pytest.mark.parametrize("count", [2147483647, 200_000_000, 65_537])
def test_a_huge_length_attr_is_a_finding_not_work(count):
    graph = (
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
        'node { name: "u" op: "Unpack" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
        f'attr {{ key: "num" value {{ i: {count} }} }} attr {{ key: "axis" value {{ i: 0 }} }} }}\n'
        'node { name: "s" op: "Split" input: "d" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
        f'attr {{ key: "num_split" value {{ i: {count} }} }} }}\n' + SPLIT_AXIS
    )
    assert len(graph) < 600
    report = tflint.lint_graph(graph.encode())
    assert [(f.rule, f.node, str(f.severity)) for f in report.findings] == [
        ("input-count", "u", "warning"),
        ("input-count", "s", "warning"),
    ]
    assert f"is {count:,}, more than tflint checks (65,536)" in report.findings[0].message


def test_a_length_within_the_bound_is_still_checked():
    from tflint.tf.op_signatures import MAX_ARG_LENGTH

    graph = (
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
        'node { name: "m" op: "AddN" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
        f'attr {{ key: "N" value {{ i: {MAX_ARG_LENGTH} }} }} }}\n'
    )
    report = tflint.lint_graph(graph.encode())
    assert [(f.rule, str(f.severity)) for f in report.findings] == [("input-count", "error")]
    assert "has 2 data inputs but its signature expects 65536" in report.findings[0].message


# 4. "Did you mean" is computed once per graph and bounded, however many names are misspelt.


def test_suggestions_are_bounded(monkeypatch):
    import difflib

    from tflint.errors import MAX_SEARCHES

    searches = []
    real = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches", lambda *args, **kw: searches.append(args[0]) or real(*args, **kw))
    count = 400
    nodes = "\n".join(f'node {{ name: "n{i}" op: "Qq{i}zz" }}' for i in range(count))
    library = " ".join(f'function {{ signature {{ name: "fn_{i}_x" }} }}' for i in range(count))
    report = tflint.lint_graph(f'node {{ name: "c" op: "identity" }}\n{nodes}\nlibrary {{ {library} }}\n'.encode())
    unknown = [f for f in report.findings if f.rule == "unknown-op"]
    assert len(unknown) == count + 1
    assert "(did you mean 'Identity'?)" in unknown[0].message  # a case-insensitive match costs no search
    assert len(searches) == MAX_SEARCHES


def test_misspelt_suppressions_are_bounded(monkeypatch):
    import difflib

    searches = []
    real = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches", lambda *args, **kw: searches.append(args[0]) or real(*args, **kw))
    lines = "\n".join(f'node {{ name: "n{i}" op: "NoOp" }}  # tflint: ignore[unknwn-op-{i}]' for i in range(300))
    tflint.lint_graph(lines.encode())
    assert 0 < len(searches) <= 64


# 7. One finding per repeated item: capped per rule and node (and per graph), with a summary finding.


def _repeated_control_inputs(count: int) -> bytes:
    graph = protos.GraphDef()
    graph.node.add(name="a", op="NoOp")
    graph.node.add(name="b", op="NoOp").input.extend(["^a"] * count)
    return graph.SerializeToString()


def test_findings_per_rule_and_node_are_capped():
    from tflint.engine.findings import MAX_PER_NODE

    report = tflint.lint_graph(_repeated_control_inputs(20_000))
    repeated = [f for f in report.findings if f.rule == "input-syntax"]
    assert len(repeated) == MAX_PER_NODE + 1
    assert {f.node for f in repeated} == {"b"}
    summaries = [f for f in repeated if f.message.startswith("...")]
    assert [f.message for f in summaries] == [
        f"... and {20_000 - 1 - MAX_PER_NODE:,} more input-syntax findings on node 'b'"
        f" (at most {MAX_PER_NODE} are reported per rule and node)"
    ]
    assert len(report.render("text")) < 200 * (MAX_PER_NODE + 2)


def test_findings_per_rule_and_graph_are_capped(monkeypatch):
    from tflint.engine import findings

    monkeypatch.setattr(findings, "MAX_PER_GRAPH", 50)
    text = "\n".join(f'node {{ name: "n{i}" op: "Nope" }}' for i in range(120))
    report = tflint.lint_graph(text.encode())
    assert len(report.findings) == 51
    assert report.findings[0].node is None and report.findings[0].line is None
    assert report.findings[0].message == (
        "... and 70 more unknown-op findings in this graph (at most 50 are reported per rule and graph)"
    )


# 8. Config errors quote values cut short: an alias bomb is not expanded into the message.


def test_an_alias_bomb_in_a_config_error_is_quoted_short(tmp_path, capsys):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 8):
        previous = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([previous] * 9)}]")
    lines.append("fail-on: *a7")
    config = tmp_path / "bomb.yaml"
    config.write_text("\n".join(lines) + "\n")
    assert len(config.read_bytes()) < 600
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    assert main(["--config", str(config), str(tmp_path / "g.pbtxt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tflint: error: {config}: unknown key 'a0'")  # the first problem found
    config.write_text("\n".join(lines).replace("a", "x").replace("fxil-on", "fail-on").replace("'lol'", "1") + "\n")
    with pytest.raises(tflint.ConfigError) as raised:
        tflint.lint_graph(b"", config={"fail-on": [[["x"] * 9] * 9] * 9})
    message = str(raised.value)
    assert message.startswith("<config>: fail-on: expected a level (info, warning or error), got [[[")
    assert len(message) < 200


@pytest.mark.parametrize(
    "value, shown",
    [
        pytest.param("x" * 10_000, "'" + "x" * 37 + "..." + "x" * 38 + "'", id="long-string"),
        pytest.param(10**5000, None, id="huge-int"),
        pytest.param("a\x1b[2Jb\u202e", "'a\\x1b[2Jb\\u202e'", id="controls"),
    ],
)
def test_quote_is_short_and_escaped(value, shown):
    text = quote(value)
    assert len(text) <= 80
    if shown is not None:
        assert text == shown


# 10. Config regexes: compiling is bounded in size, searching in time per file.


@pytest.mark.parametrize(
    "pattern, reason",
    [
        pytest.param("(?:(?:a{1000}){1000}){1000}", "expand to more than 10,000,000 steps", id="nested-counts"),
        pytest.param("a" * 1001, "1,001 characters long", id="too-long"),
        pytest.param("(", "missing )", id="invalid"),
    ],
)
def test_a_pattern_too_big_to_compile_is_a_config_error(pattern, reason):
    config = {"rules": {"empty-op": {"ignore-nodes": [pattern]}}}
    with pytest.raises(tflint.ConfigError, match="rules.empty-op.ignore-nodes: invalid regular expression") as raised:
        tflint.lint_graph(b"", config=config)
    assert reason in str(raised.value)
    config = {"rules": {"node-name-pattern": {"level": "warning", "forbid": [pattern]}}}
    with pytest.raises(tflint.ConfigError, match=re.escape(reason)):
        tflint.lint_graph(b"", config=config)


def test_user_patterns_share_one_time_budget_per_file(monkeypatch):
    from tflint.runtime import user_regex

    class Slow:
        """A pattern whose every search takes 0.2 s (just under a per-search timeout of 0.25 s)."""

        pattern = "slow"
        searches = 0

        def search(self, text, timeout):
            Slow.searches += 1
            time.sleep(min(0.2, timeout))
            if timeout < 0.2:
                raise TimeoutError
            return None

    monkeypatch.setattr(user_regex, "BUDGET_SECONDS", 1.0)
    user_regex.reset_budget()
    outcomes = []
    for _ in range(100):
        try:
            outcomes.append(user_regex.search(Slow(), "name", 0.25))
        except user_regex.BudgetSpent:
            outcomes.append("spent")
            break
    assert outcomes[-1] == "spent" and Slow.searches <= 6


# 9. Device files and FIFOs are never read; -o to a symlink or device writes through it.

GRAPH = 'node { name: "a" op: "NoOp" }\n'


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pbtxt").write_text(GRAPH)
    return tmp_path


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(
            ["--baseline", "zero.json"], "zero.json: cannot read baseline: not a regular file (a device)", id="baseline"
        ),
        pytest.param(
            ["--op-defs", "zero.json"],
            "zero.json: cannot read op definitions: not a regular file (a device)",
            id="op-defs",
        ),
        pytest.param(
            ["--config", "zero.json"], "zero.json: cannot read config: not a regular file (a device)", id="config"
        ),
        pytest.param(
            ["--baseline", "fifo"], "fifo: cannot read baseline: not a regular file (a named pipe;", id="fifo-baseline"
        ),
        pytest.param(
            ["fifo"], "fifo: not a regular file (a named pipe; pipe it to stdin with '-' instead)", id="fifo-graph"
        ),
        pytest.param(["--baseline", "loop"], "loop: cannot read baseline: a loop of symbolic links", id="loop"),
    ],
)
def test_devices_fifos_and_loops_are_refused(repo, capsys, args, message):
    os.symlink("/dev/zero", repo / "zero.json")
    os.mkfifo(repo / "fifo")
    os.symlink("loop", repo / "loop")
    if args == ["fifo"]:
        assert main(args) == 2
    else:
        assert main([*args, "g.pbtxt"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tflint: error: {message}") and err.count("\n") == 1


def test_oversized_config_and_baseline_are_refused_before_reading(repo, capsys, monkeypatch):
    from tflint.read import guarded

    monkeypatch.setattr(guarded, "MAX_BASELINE_BYTES", 100)
    (repo / "base.json").write_text('{"version": 1, "files": {}}' + " " * 200)
    assert main(["--baseline", "base.json", "g.pbtxt"]) == 2
    assert "base.json: cannot read baseline: 227 bytes, more than the 100 accepted" in capsys.readouterr().err


def test_output_to_a_symlink_is_written_through_not_replaced(repo, capsys):
    (repo / "real.txt").write_text("")
    os.symlink("real.txt", repo / "out.txt")
    assert main(["-o", "out.txt", "g.pbtxt"]) == 0
    assert (repo / "out.txt").is_symlink()
    assert "All checks passed" in (repo / "real.txt").read_text()
    os.mkfifo(repo / "pipe")
    reader = subprocess.Popen(
        [sys.executable, "-c", "import sys; print(open(sys.argv[1]).read(), end='')", "pipe"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert main(["-o", "pipe", "g.pbtxt"]) == 0
    assert "All checks passed" in reader.communicate(timeout=30)[0]
    assert (repo / "pipe").is_fifo()


# 11. assets/ is listed without leaving the SavedModel and without looping.


def test_assets_walk_stays_inside_the_model(tmp_path):
    model = tmp_path / "model"
    (model / "assets" / "sub").mkdir(parents=True)
    (model / "assets" / "sub" / "vocab.txt").write_text("a\n")
    os.symlink(".", model / "assets" / "loop")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    os.symlink(outside, model / "assets" / "elsewhere")
    (model / "saved_model.pbtxt").write_text(READS_A_FILE)
    from tflint.read.load import load_path

    assets = load_path(str(model)).directory_listing().assets
    assert "sub/vocab.txt" in assets
    assert not any("secret" in name for name in assets)
    assert len(assets) < 10


# 12. Paths the system refuses are one line, never an exception of another kind.


def test_a_path_too_long_is_a_usage_error():
    with pytest.raises(tflint.UsageError, match="the path is too long"):
        tflint.lint_file("x" * 5000)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_an_unreadable_directory_is_a_usage_error(tmp_path):
    locked = tmp_path / "locked"
    (locked / "inner").mkdir(parents=True)
    locked.chmod(0)
    try:
        with pytest.raises(tflint.UsageError):
            tflint.lint_paths([locked / "inner"])
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param(
            '{"version": 1, "files": {"g": {"r": {"n": 1' + "0" * 5000 + "}}}}", "not a tflint baseline", id="huge-int"
        ),
        pytest.param("[" * 100_000 + "]" * 100_000, "nested too deeply", id="deep"),
        pytest.param('{"version": 1, "files": {"g": {"r": {"n": 99999999999}}}}', "positive count", id="big-count"),
    ],
)
def test_hostile_baselines_are_usage_errors(repo, capsys, text, message):
    (repo / "base.json").write_text(text)
    assert main(["--baseline", "base.json", "g.pbtxt"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and len(err) < 400


# 6. Ctrl-C exits 130 with no traceback and leaves no process behind, in every mode: tests/test_signals.py.


# 13. `python -m tflint` run in a checkout never imports the checkout's modules.


def test_python_m_tflint_does_not_import_from_the_checkout(tmp_path):
    marker = tmp_path / "pwned"
    (tmp_path / "yaml.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit(99)\n")
    (tmp_path / ".tflint.yaml").write_text("rules: {empty-op: warning}\n")  # makes tflint import yaml
    (tmp_path / "g.pbtxt").write_text(GRAPH)
    env = {**os.environ, "PYTHONPATH": ""}
    result = subprocess.run(
        [sys.executable, "-m", "tflint", "g.pbtxt"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert not marker.exists()


def test_extends_a_path_too_long_is_a_config_error():
    with pytest.raises(tflint.ConfigError, match="is neither a preset"):
        tflint.lint_graph(b"", config={"extends": "x" * 5000})


# 5. Nothing from a graph or a file name reaches the output unescaped.

HOSTILE_NAME = "a\n::error file=README.md,line=1::fake\x1b[2J\u202egnp.\x00"


def _hostile_graph() -> bytes:
    graph = protos.GraphDef()
    graph.node.add(name=HOSTILE_NAME, op="NotAnOp")
    return graph.SerializeToString()


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit"])
def test_no_control_or_bidi_character_reaches_any_format(tmp_path, capsys, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    name = "g\n::warning::x\x1b]0;t\x07.pb"
    (tmp_path / name).write_bytes(_hostile_graph())
    assert main(["--format", fmt, name]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    unsafe = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
    assert unsafe.search(out) is None
    for line in out.splitlines():
        # A workflow command is only ever one tflint wrote: the finding or the closing notice.
        if line.startswith("::"):
            assert fmt == "github" and re.match(r"::(error|notice) (file=|title=tflint::)", line), line
    if fmt == "junit":
        ET.fromstring(out)  # well-formed XML
    if fmt == "text":
        assert "a\\n::error file=README.md,line=1::fake\\x1b[2J\\u202egnp.\\x00" in out


def test_github_escapes_properties_and_data():
    from tflint.finding import Finding, Severity
    from tflint.report import renderer
    from tflint.report.summary import Summary

    finding = Finding("unknown-op", Severity.ERROR, "100%\r\n::stop-commands::x", "a,b:c\n.pb", 1, 2, "n")
    out = renderer("github")([finding], Summary(files=1, root=os.getcwd()))
    first = out.splitlines()[0]
    assert first == (
        "::error file=a%2Cb%3Ac\\n.pb,line=1,col=2,title=tflint (unknown-op)"
        "::100%25\\r\\n::stop-commands::x [unknown-op]"
    )
    assert out.count("\n") == 2


def test_a_file_name_starting_with_two_colons_cannot_start_a_workflow_command(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "::error::x.pbtxt").write_text('node { name: "a" op: "NotAnOp" }\n')
    assert main(["::error::x.pbtxt"]) == 1
    out = capsys.readouterr().out
    assert not any(line.startswith("::") for line in out.splitlines())
    assert out.startswith("\\x3a:error::x.pbtxt:1:8: error:")


def test_error_lines_are_escaped(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["missing\n::error::x\x1b[2J"]) == 2
    assert capsys.readouterr().err == "tflint: error: missing\\n::error::x\\x1b[2J: no such file or directory\n"


# junit-10.xsd (Jenkins xUnit): the elements and attributes it allows.
JUNIT_10 = {
    "testsuites": {"name", "time", "tests", "failures", "disabled", "errors"},
    "testsuite": {
        "name",
        "tests",
        "failures",
        "errors",
        "time",
        "disabled",
        "skipped",
        "timestamp",
        "hostname",
        "id",
        "package",
    },
    "testcase": {"name", "assertions", "time", "classname", "status"},
    "failure": {"type", "message"},
}
JUNIT_10_REQUIRED = {"testsuite": {"name", "tests"}, "testcase": {"name"}, "failure": {"type", "message"}}


def test_junit_is_valid_against_the_structure_of_junit_10(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.pb").write_bytes(_hostile_graph())
    (tmp_path / "ok.pbtxt").write_text(GRAPH)
    main(["--format", "junit", "bad.pb", "ok.pbtxt"])
    root = ET.fromstring(capsys.readouterr().out)
    assert root.tag == "testsuites"
    elements = list(root.iter())
    assert {element.tag for element in elements} == {"testsuites", "testsuite", "testcase", "failure"}
    for element in elements:
        assert set(element.attrib) <= JUNIT_10[element.tag], (element.tag, element.attrib)
        assert JUNIT_10_REQUIRED.get(element.tag, set()) <= set(element.attrib)
    assert [child.tag for child in root] == ["testsuite", "testsuite"]


def test_escape_leaves_ordinary_text_alone():
    text = "Node 'a/b_1' (op MatMul): déjà vu — 100% [unknown-op]"
    assert escape(text) is text  # nothing copied when nothing needs escaping
    assert escape("x\ty") == "x\\ty"
    assert escape("\u2066\u2069\x85\x7f") == "\\u2066\\u2069\\x85\\x7f"


def test_compat_refuses_a_device(repo, capsys):
    os.symlink("/dev/zero", repo / "old.pb")
    assert main(["compat", "old.pb", "old.pb"]) == 2
    assert capsys.readouterr().err == "tflint: error: old.pb: not a regular file (a device)\n"


# Issue 18: what a file claims is never what tflint allocates. Length prefixes past the end of the
# file, and tensors whose shapes claim 10**18 elements, are findings; the sizes here could not be
# allocated, so any attempt would fail the test with a MemoryError instead of a finding.


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _delimited(number: int, value: bytes, claimed: int | None = None) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value) if claimed is None else claimed) + value


def _const_node(tensor_bytes: bytes) -> bytes:
    entry = _delimited(1, b"value") + _delimited(2, _delimited(8, tensor_bytes))
    return _delimited(1, b"w") + _delimited(2, b"Const") + _delimited(5, entry)


CLAIMS_TOO_MUCH = {
    "node": _delimited(1, _const_node(b"\x08\x01"), claimed=1 << 62),
    # every length right but the tensor_content's, deep inside a node
    "tensor_content": _delimited(1, _const_node(b"\x08\x01" + _delimited(4, b"\0\0\x80?", claimed=1 << 62))),
    "versions": _delimited(1, _const_node(b"\x08\x01")) + _delimited(4, b"", claimed=(1 << 63) - 1),
}


@pytest.mark.parametrize("mapped", [False, True], ids=["read", "mapped"])
@pytest.mark.parametrize("claim", sorted(CLAIMS_TOO_MUCH))
def test_length_prefixes_past_the_end_are_invalid_graph(tmp_path, monkeypatch, claim, mapped):
    from tflint.read import mapped as mapped_reading

    if mapped:  # the reader of big files walks the same bytes first
        monkeypatch.setattr(mapped_reading, "MAP_MIN_BYTES", 1)
        monkeypatch.setattr(mapped_reading, "STRIP_MIN_BYTES", 1)
    path = tmp_path / "model.pb"
    path.write_bytes(CLAIMS_TOO_MUCH[claim])
    findings = tflint.lint_file(path).findings
    assert [(f.rule, f.line) for f in findings] == [("invalid-graph", None)]
    assert findings[0].message.startswith("cannot read binary graph: not a valid binary ")


HUGE = "dim { size: 1000000000 } dim { size: 1000000000 }"  # 10**18 elements


def _huge(name: str, dtype: str, values: str) -> str:
    return (
        f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} attr {{ key: "value" '
        f"value {{ tensor {{ dtype: {dtype} tensor_shape {{ {HUGE} }} {values} }} }} }} }}\n"
    )


HUGE_TENSORS = (
    _huge("floats", "DT_FLOAT", "float_val: 1.0 float_val: nan")
    + _huge("content", "DT_FLOAT", 'tensor_content: "\\000\\000\\200?"')
    + _huge("ints", "DT_INT32", "int_val: 2")
    + _huge("strings", "DT_STRING", 'string_val: "ab"')
    + _huge("packed", "DT_STRING", 'tensor_content: "\\002ab"')
    + 'node { name: "fill" op: "Fill" input: "ints" input: "floats" attr { key: "T" value { type: DT_FLOAT } } '
    'attr { key: "index_type" value { type: DT_INT32 } } }\n'
)


def test_a_tensor_claiming_10_to_the_18_elements_is_a_finding_not_an_allocation(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(HUGE_TENSORS)
    config = {"rules": {"non-finite-constant": "warning", "large-constant": "warning"}}
    findings = tflint.lint_file(path, config=config).findings
    assert [(f.rule, f.node) for f in findings] == [
        ("large-constant", "floats"),
        ("non-finite-constant", "floats"),
        ("large-constant", "content"),
        ("tensor-content", "content"),
        ("large-constant", "ints"),
        ("large-constant", "strings"),
        ("tensor-content", "packed"),
        ("shape-mismatch", "fill"),
    ]
    by_node = {(f.rule, f.node): f.message for f in findings}
    assert "needs 1000000000000000000 x 4 = 4000000000000000000 bytes" in by_node[("tensor-content", "content")]
    assert "3637978.8 TiB" in by_node[("large-constant", "floats")]
    assert "element 1 is nan" in by_node[("non-finite-constant", "floats")]

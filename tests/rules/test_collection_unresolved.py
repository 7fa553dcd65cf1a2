"""collection-unresolved: node_list entries of saved collections name what Graph.as_graph_element finds.

TensorFlow's verdicts on the same lookups (import_meta_graph, TF 1.15 and 2.21) are recorded in
tests/data/tf_import_cases.jsonl (category "collections") and replayed by tests/test_tf_import_cases.py;
the SavedModel cases were checked with TF 2.21's `tf.saved_model.load` and the TF1 loader.
"""

from __future__ import annotations

import pytest
from conftest import DATA, lint_text, pinned
from serving_graphs import REAL_DIRS, SERVING, copy_model, edit_saved_model, meta, node, saved_model

from tflint.api import lint_file

RULE = "collection-unresolved"
X = node("x", "NoOp")
TWO_OUTPUTS = (
    'node { name: "u" op: "Unique" input: "p" attr { key: "T" value { type: DT_INT32 } } '
    'attr { key: "out_idx" value { type: DT_INT32 } } }'
)
P = 'node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }'


def collection(key: str, *entries: str) -> str:
    """A node_list CollectionDef, one entry per line."""
    values = "".join(f'\n      value: "{entry}"' for entry in entries)
    return f'collection_def {{\n  key: "{key}"\n  value {{\n    node_list {{{values}\n    }}\n  }}\n}}'


def _case(*collections: str, nodes: tuple[str, ...] = (X,), expected: tuple[tuple[str, str | None], ...] = ()):
    """(text, pins): each (needle, node) expects a finding on the line of the needle."""
    text = meta(*nodes, extra="\n".join(collections))
    return text, [(RULE, node_name, _line(text, needle)) for needle, node_name in expected]


def _line(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.split("\n"), start=1) if needle in line)


CASES = [
    (
        "op-and-tensor",
        _case(collection("train_op", "x"), collection("outputs", "p:0", "u:1", "u:-2"), nodes=(X, P, TWO_OUTPUTS)),
    ),
    ("missing-op", _case(collection("train_op", "nope"), expected=(('"nope"', None),))),
    ("missing-tensor-op", _case(collection("outputs", "nope:0"), expected=(('"nope:0"', None),))),
    ("output-past-the-end", _case(collection("outputs", "u:2"), nodes=(P, TWO_OUTPUTS), expected=(('"u:2"', "u"),))),
    (
        "negative-past-the-start",
        _case(collection("outputs", "u:-3"), nodes=(P, TWO_OUTPUTS), expected=(('"u:-3"', "u"),)),
    ),
    ("op-without-outputs", _case(collection("outputs", "x:0"), expected=(('"x:0"', "x"),))),
    ("two-colons", _case(collection("outputs", "x:0:1"), expected=(('"x:0:1"', None),))),
    ("non-numeric-index", _case(collection("outputs", "x:out"), expected=(('"x:out"', None),))),
    ("control-name", _case(collection("train_op", "^x"), expected=(('"^x"', None),))),
    ("empty-entry", _case(collection("train_op", ""), expected=(('value: ""', None),))),
    # Python's int(): TensorFlow's lookup accepts a sign and spaces around the index.
    ("python-int-index", _case(collection("outputs", "p: +0 "), nodes=(P,))),
    ("unbound-inputs", _case(collection("unbound_inputs", "nope"), expected=(('"nope"', None),))),
    ("empty-unbound-inputs", _case(collection("unbound_inputs"))),
    (
        "unbound-inputs-of-any-kind",
        _case(
            'collection_def { key: "unbound_inputs" value { int64_list { value: 1 } } }',
            expected=(("int64_list", None),),
        ),
    ),
    ("variables-as-node-list", _case(collection("local_variables", "nope"), expected=(('"nope"', None),))),
    ("bytes-list-kept-as-is", _case('collection_def { key: "names" value { bytes_list { value: "nope" } } }')),
    ("no-kind", _case('collection_def { key: "empty" value { } }')),
    (
        "every-bad-entry",
        _case(collection("b", "y"), collection("a", "x", "z"), expected=(('"y"', None), ('"z"', None))),
    ),
]


def variable_def(initializer: str = "v/Assign", snapshot: str = "v/read:0", resource: bool = False) -> str:
    """A serialized VariableDef of variable `v:0`, escaped for a text-format bytes value."""

    def field(number: int, text: str) -> bytes:
        return bytes([number << 3 | 2, len(text)]) + text.encode()

    data = field(1, "v:0") + field(2, initializer) + field(3, snapshot) + (bytes([5 << 3, 1]) if resource else b"")
    return "".join(f"\\{byte:03o}" for byte in data)


def variables(key: str, *entries: str) -> str:
    values = "".join(f'\n      value: "{entry}"' for entry in entries)
    return f'collection_def {{\n  key: "{key}"\n  value {{\n    bytes_list {{{values}\n    }}\n  }}\n}}'


V = 'node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }'
ASSIGN = 'node { name: "v/Assign" op: "Assign" input: "v" input: "v" attr { key: "T" value { type: DT_FLOAT } } }'
READ = 'node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }'
FROZEN_V = 'node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }'
HANDLE = 'node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }'
VARIABLE = (V, ASSIGN, READ)
CASES += [
    ("variable", _case(variables("variables", variable_def()), nodes=VARIABLE)),
    (
        "frozen-variable-lost-its-initializer",
        _case(variables("variables", variable_def()), nodes=(FROZEN_V, READ), expected=(("value: ", "v"),)),
    ),
    (
        "snapshot-gone",
        _case(variables("trainable_variables", variable_def()), nodes=(V, ASSIGN), expected=(("value: ", "v"),)),
    ),
    (
        "resource-variable-without-snapshot",
        _case(variables("variables", variable_def(snapshot="", resource=True)), nodes=(HANDLE, ASSIGN)),
    ),
    (
        "ref-variable-without-snapshot",
        _case(variables("variables", variable_def(snapshot="")), nodes=VARIABLE, expected=(("value: ", "v"),)),
    ),
    (
        "not-a-variable-def",
        _case(variables("global_step", "\\377\\377"), nodes=VARIABLE, expected=(("value: ", None),)),
    ),
    ("other-bytes-kept-as-is", _case(variables("mine", "\\377\\377"), nodes=VARIABLE)),
    (
        "one-variable-in-two-collections-is-rebuilt-once",
        _case(
            # TensorFlow restores collections in key order: the finding is on the first rebuilt.
            variables("trainable_variables", variable_def()),
            variables("variables", variable_def()),
            nodes=(FROZEN_V, READ),
            expected=(("value: ", "v"),),
        ),
    ),
]


def serialized(*fields: tuple[int, object]) -> bytes:
    """Protobuf fields (number, str | int | nested fields) as wire bytes (every length below 128)."""
    data = b""
    for number, value in fields:
        if isinstance(value, int):
            data += bytes([number << 3, value])
        else:
            body = serialized(*value) if isinstance(value, tuple) else str(value).encode()
            data += bytes([number << 3 | 2, len(body)]) + body
    return data


def escaped(data: bytes) -> str:
    return "".join(f"\\{byte:03o}" for byte in data)


def queue_runner(queue: str = "q", enqueue: str = "enq", codes: tuple[int, ...] = ()) -> str:
    fields = [(1, queue), (2, enqueue), (3, "close"), (4, "cancel"), *[(5, code) for code in codes]]
    return escaped(serialized(*fields))


def cond_context(values: tuple[str, ...] = ("t:0",), nested: tuple[tuple, ...] = ()) -> tuple:
    """A CondContextDef's fields: predicate p:0, pivot t:0, p:0 an external value."""
    values_def = tuple((1, value) for value in values) + ((2, ((1, "p:0"), (2, "p:0"))),)
    return ((1, "cond/cond_text"), (2, "p:0"), (3, "t:0"), (5, values_def), *[(6, context) for context in nested])


def while_context(exit_name: str = "t:0") -> tuple:
    """A WhileContextDef's fields: pivots p:0, pred and body, one exit, one enter."""
    return ((1, "while/while_context"), (5, "p:0"), (6, "pred"), (7, "body"), (8, exit_name), (10, "t:0"))


def saver(save: str = "save/control_dependency:0") -> str:
    return escaped(serialized(*[(number, name) for number, name in ((2, save), (3, "save/restore_all")) if name]))


QUEUE = tuple(node(name, "NoOp") for name in ("q", "enq", "close", "cancel"))
CONST = 'node {{ name: "{}" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} }}'
CONTEXT = (CONST.format("p"), CONST.format("t"), node("pred", "NoOp"), node("body", "NoOp"))
CASES += [
    ("queue-runner", _case(variables("queue_runners", queue_runner()), nodes=QUEUE)),
    (
        "queue-runner-enqueue-gone",
        _case(variables("queue_runners", queue_runner(enqueue="nope")), nodes=QUEUE, expected=(("value: ", None),)),
    ),
    (
        "queue-runner-queue-as-tensor",
        _case(variables("queue_runners", queue_runner(queue="q:0")), nodes=QUEUE, expected=(("value: ", "q"),)),
    ),
    ("queue-runner-codes", _case(variables("queue_runners", queue_runner(codes=(11, 16))), nodes=QUEUE)),
    (
        "queue-runner-ok-is-no-error-code",
        _case(variables("queue_runners", queue_runner(codes=(0,))), nodes=QUEUE, expected=(("value: ", None),)),
    ),
    (
        "queue-runner-not-a-proto",
        _case(variables("queue_runners", "\\377"), nodes=QUEUE, expected=(("value: ", None),)),
    ),
    ("cond-context", _case(variables("cond_context", escaped(serialized(*cond_context()))), nodes=CONTEXT)),
    (
        "cond-value-index-is-not-checked",
        _case(variables("cond_context", escaped(serialized(*cond_context(values=("t:9",))))), nodes=CONTEXT),
    ),
    (
        "cond-value-gone",
        _case(
            variables("cond_context", escaped(serialized(*cond_context(values=("y:0",))))),
            nodes=CONTEXT,
            expected=(("value: ", None),),
        ),
    ),
    (
        "cond-nested-context-of-no-kind",
        _case(
            variables("cond_context", escaped(serialized(*cond_context(nested=((),))))),
            nodes=CONTEXT,
            expected=(("value: ", None),),
        ),
    ),
    ("while-context", _case(variables("while_context", escaped(serialized(*while_context()))), nodes=CONTEXT)),
    (
        "while-exit-gone",
        _case(
            variables("while_context", escaped(serialized(*while_context("x:0")))),
            nodes=CONTEXT,
            expected=(("value: ", None),),
        ),
    ),
    # A Saver of a SaverDef looks none of its names up (missing-variables does, for the loader's restore).
    ("saver-names-are-not-looked-up", _case(variables("savers", saver()))),
    ("saver-without-save-tensor", _case(variables("savers", saver(save="")), expected=(("value: ", None),))),
]


@pytest.mark.parametrize("text, expected", [case for _, case in CASES], ids=[name for name, _ in CASES])
def test_rule(text, expected):
    assert pinned(lint_text(text, input_type="metagraphdef-text"), rule=RULE) == expected


def test_messages_say_what_the_lookup_finds():
    text = meta(
        P, TWO_OUTPUTS, extra="\n".join([collection("c", "nope", "u:5", "u:x"), collection("unbound_inputs", "i")])
    )
    messages = [f.message for f in lint_text(text, input_type="metagraphdef-text") if f.rule == RULE]
    assert messages == [
        "Collection 'c' entry 'nope' names no op of the graph: loading the meta graph fails restoring its collections",
        "Collection 'c' entry 'u:5' names output 5 of 'u' (Unique), which has 2 outputs: loading the meta graph "
        "fails restoring its collections",
        "Collection 'c' entry 'u:x' is not a tensor name (`op:index`): loading the meta graph fails restoring its "
        "collections",
        "Collection 'unbound_inputs' lists 'i': import_meta_graph refuses the graph unless the caller's input_map "
        "supplies exactly these inputs",
    ]


def test_variable_messages_name_the_variable_and_what_is_missing():
    text = meta(FROZEN_V, READ, extra=variables("variables", variable_def(), "\\377"))
    messages = [f.message for f in lint_text(text, input_type="metagraphdef-text") if f.rule == RULE]
    assert messages == [
        "Collection 'variables' entry 0 (variable 'v:0'): its initializer 'v/Assign' names no op of the graph: "
        "loading the meta graph fails restoring its collections",
        "Collection 'variables' entry 1 is not a serialized VariableDef: loading the meta graph fails restoring its "
        "collections",
    ]


def test_a_huge_index_is_no_tensor_name_and_is_not_converted():
    text = meta(X, extra=collection("outputs", "x:" + "9" * 100_000))
    findings = [f for f in lint_text(text, input_type="metagraphdef-text") if f.rule == RULE]
    assert [f.message.split(" is ")[1][:17] for f in findings] == ["not a tensor name"]


def test_plain_graphs_have_no_collections_to_check():
    assert pinned(lint_text(f"{X}\n"), rule=RULE) == []


def _add_stale_entry(message):
    message.meta_graphs[0].collection_def["train_op"].node_list.value.append("nope")


def test_tf1_saved_model_is_checked(tmp_path):
    # tf.saved_model.load (TF 2.21) and the TF1 loader both fail on it: KeyError "The name 'nope' refers to an
    # Operation not in the graph."
    model = copy_model(SERVING / "tf1_legacy_init_op", tmp_path)
    edit_saved_model(model, _add_stale_entry)
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.node, f.message.split(":")[0]) for f in findings] == [
        (None, "Collection 'train_op' entry 'nope' names no op of the graph")
    ]


def test_tf2_saved_model_is_loaded_without_its_collections(tmp_path):
    # tf.saved_model.load (TF 2.21) reads it through its object graph and loads it; so does TensorFlow Serving.
    model = copy_model(REAL_DIRS / "tf2_module_signatures", tmp_path)
    edit_saved_model(model, _add_stale_entry)
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []


def test_saved_model_text_with_two_meta_graphs_points_at_each_entry():
    first = meta(X, tags=["serve"], extra=collection("train_op", "gone"))
    second = meta(X, tags=["train"], extra="object_graph_def { }\n" + collection("train_op", "x", "lost"))
    text = saved_model(first, second)
    findings = [f for f in lint_text(text, name="saved_model.pbtxt") if f.rule == RULE]
    assert [(f.line, f.message.split(" names")[0]) for f in findings] == [
        (_line(text, '"gone"'), "Collection 'train_op' entry 'gone'"),
        (_line(text, '"lost"'), "Collection 'train_op' entry 'lost'"),
    ]


def test_rebuilt_entries_say_what_is_missing_where():
    inner = while_context("x:0")
    text = meta(
        *QUEUE,
        *CONTEXT,
        extra="\n".join(
            [
                variables("queue_runners", queue_runner(enqueue="nope"), queue_runner(codes=(99,))),
                variables("cond_context", escaped(serialized(*cond_context(nested=(((2, inner),),))))),
                variables("savers", saver(save="")),
            ]
        ),
    )
    messages = [f.message for f in lint_text(text, input_type="metagraphdef-text") if f.rule == RULE]
    tail = ": loading the meta graph fails restoring its collections"
    assert messages == [
        "Collection 'queue_runners' entry 0 (queue 'q'): its enqueue op 'nope' names no op of the graph" + tail,
        "Collection 'queue_runners' entry 1 (queue 'q'): closed-queue exception code 99 is no TensorFlow error" + tail,
        "Collection 'cond_context' entry 0 (cond 'cond/cond_text', nested while 'while/while_context'): its loop exit "
        "'x:0' names a tensor of 'x', which the graph lacks" + tail,
        "Collection 'savers' entry 0 has no save_tensor_name" + tail,
    ]


def test_the_meta_graphs_own_saver_def_needs_its_two_names():
    # import_meta_graph makes a Saver of it, which refuses a SaverDef without them (TF 1.15 and 2.21).
    text = meta(X, extra='saver_def {\n  filename_tensor_name: "save/Const:0"\n  save_tensor_name: "s:0"\n}')
    findings = [f for f in lint_text(text, input_type="metagraphdef-text") if f.rule == RULE]
    assert [(f.message, f.line) for f in findings] == [
        (
            "The meta graph's saver_def has no restore_op_name: loading the meta graph fails making its Saver",
            _line(text, "saver_def {"),
        )
    ]


@pytest.mark.parametrize(
    "name, key, type_name, edit",
    [
        pytest.param(
            "tf1_queues.meta.pbtxt",
            "queue_runners",
            "QueueRunnerDef",
            lambda entry: entry.enqueue_op_name.__setitem__(0, "nope"),
            id="queue-runner",
        ),
        pytest.param(
            "tf1_control_flow_v1.meta.pbtxt",
            "cond_context",
            "CondContextDef",
            lambda entry: setattr(entry, "pivot_name", "nope:0"),
            id="cond-context",
        ),
        pytest.param(
            "tf1_control_flow_v1.meta.pbtxt",
            "while_context",
            "WhileContextDef",
            lambda entry: entry.loop_exit_names.append("nope:0"),
            id="while-context",
        ),
    ],
)
def test_real_meta_graphs_rebuild_and_a_stale_name_is_found(name, key, type_name, edit):
    # Meta graphs TensorFlow 2.21 wrote (tf.compat.v1): their collections rebuild as they are.
    from google.protobuf import text_format

    from tflint import protos

    text = (DATA / "real" / name).read_text()
    assert pinned(lint_text(text, input_type="metagraphdef-text"), rule=RULE) == []
    graph = text_format.Parse(text, protos.MetaGraphDef(), descriptor_pool=protos.POOL)
    entries = graph.collection_def[key].bytes_list.value
    entry = protos.message_class(f"tensorflow.{type_name}").FromString(entries[0])
    edit(entry)
    entries[0] = entry.SerializeToString()
    [finding] = [f for f in lint_text(str(graph), input_type="metagraphdef-text") if f.rule == RULE]
    assert finding.message.startswith(f"Collection '{key}' entry 0 (") and "'nope" in finding.message

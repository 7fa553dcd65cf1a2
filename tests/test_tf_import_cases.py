"""Replay TensorFlow 2.21's import verdicts (tests/data/tf_import_cases.jsonl) through tflint.

Each case is a small graph, the arguments it was imported with, and what
TensorFlow's real `import_graph_def` / `import_meta_graph` said (recorded
with tools/tf_import_cases.py; TensorFlow never runs here). tflint agrees
when a graph TensorFlow imports gets no error, and a graph it rejects gets an
error of the rule that models TensorFlow's message. The cases where tflint
knowingly says something else are listed in KNOWN_DIFFERENCES, each with its
reason; the test fails if one of them starts to agree, so the list stays
true.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import DATA, lint_bytes, lint_text

from tflint.finding import Severity

CASES = [json.loads(line) for line in (DATA / "tf_import_cases.jsonl").read_text().splitlines() if line.strip()]

# TensorFlow's message (searched, first match wins) -> the rule that reports the same problem.
RULE_OF_MESSAGE = [
    (r"Op type not registered ''", "empty-op"),
    (r"Op type not registered", "unknown-op"),
    (r"^input \S+ is not found", "unresolved-input"),
    (r"^Return \S+ -> \S+ is not found|^Invalid ret types", "function-ret"),
    (r"expected type INVALID", "attr-type-mismatch"),
    (r"^type attr not found|^NodeDef missing attr", "missing-attr"),
    (r"_output_shapes attribute inconsistent|^Dimensions must be equal", "shape-mismatch"),
    (r"the _output_shapes attribute specifies|invalid _output_shapes attribute", "invalid-shape"),
    (r"^GraphDef min consumer version|^GraphDef disallows consumer version", "graph-version"),
    (
        r"^Requested return (tensor|node)|^Invalid return output|^Attempted to map inputs|^Cannot convert .* to a "
        r"tensor name|not a valid root scope name|would lead to invalid node names|requires a non-empty `name`"
        r"|was passed \w+ from mapped_|^input_map entry \S+ between control edge and non-control edge",
        "import-contract",
    ),
    (r"was passed \w+ from \S+ incompatible with expected", "type-attr-consistency"),
    (r"^FunctionDefLibrary missing", "unknown-function"),
    (r"cyclic gradient functions", "recursive-function"),
    (r"^Cannot assign gradient function|^Cannot add function", "function-name-conflict"),
    (r"Unknown input node", "unresolved-input"),
    (r"Node name contains invalid characters", "node-name-syntax"),
    (r"is not unique$", "duplicate-node-name"),
    (r"does not specify an operation", "empty-op"),
    (r"Control dependencies must come after regular dependencies", "control-input-order"),
    (
        r"refers to an Operation not in the graph|refers to a Tensor which does not exist|looks a like a Tensor "
        r"name, but is not a valid one|^Graph contains unbound inputs|^Error parsing message with type "
        r".tensorflow.(VariableDef|QueueRunnerDef|SaverDef|CondContextDef|WhileContextDef).|^Expected binary or "
        r"unicode string|^saver_def must specify|^Unknown ControlFlowContextDef field"
        # A queue runner's closed-queue code that is no error: the KeyError of TensorFlow's code -> exception table.
        r"|^\d+$",
        "collection-unresolved",
    ),
    (r"nodes in a cycle", "cycle"),
    (r"Connecting to invalid output", "output-index-out-of-range"),
    (r"expects to be colocated with unknown node", "colocation-unresolved"),
    (r"is not available in GraphDef version", "deprecated-op"),
]

_RUNS_LATER = (
    "TensorFlow instantiates If/While/Case branches when the node runs, not at import: the graph imports "
    "and fails at its first run; tflint reports the broken body (reached through the node's function attr) "
    "as an error"
)
_MISSING_FUNCTION = (
    "a function attr naming a function the library lacks: TensorFlow imports the graph (it skips shape inference "
    "for a call it cannot resolve) and fails when the node runs; tflint's unknown-function reports it"
)
_NO_SHAPE_INFERENCE = (
    "`_disable_call_shape_inference` makes TensorFlow skip the body at import; the call still fails when it "
    "runs, and tflint reports the body's problem as an error"
)
# Case id -> why tflint's verdict differs from TensorFlow's.
KNOWN_DIFFERENCES = {
    "fn_if_then_unknown_op": _RUNS_LATER,
    "fn_while_body_unknown_op": _RUNS_LATER,
    "fn_case_branch_dangling_input": _RUNS_LATER,
    "fn_if_branch_calls_bad_nested": _RUNS_LATER,
    "fn_if_missing_branch": _MISSING_FUNCTION,
    "fn_partitionedcall_missing_function": _MISSING_FUNCTION,
    "fn_direct_call_disable_shape_inference": _NO_SHAPE_INFERENCE,
    "fn_partitionedcall_disable_shape_inference": _NO_SHAPE_INFERENCE,
    "meta_saver_def_missing_ops": (
        "import_meta_graph makes a Saver of the saver_def without looking its names up; restoring a checkpoint "
        "through it (the SavedModel loaders do, at once) runs restore_op_name fed filename_tensor_name and "
        "fails: tflint's missing-variables reports the names the graph lacks as an error"
    ),
    "ctrl_deps_missing": (
        "the failure is in the caller's graph (tf.control_dependencies naming an operation it lacks), before "
        "the import: nothing of the GraphDef or of import_graph_def's arguments decides it"
    ),
}


def expected_rule(message: str) -> str | None:
    """The rule that models TensorFlow's `message` (None: none does)."""
    for pattern, rule in RULE_OF_MESSAGE:
        if re.search(pattern, message):
            return rule
    return None


def lint_case(case: dict):
    """tflint's findings for a recorded case, linted with the case's import arguments."""
    args = case["import_args"]
    meta = case["api"] != "import_graph_def"
    kind = "metagraphdef" if meta else "graphdef"
    import_args = None
    if case["api"] == "import_graph_def":
        input_map = None
        if args.get("input_map") is not None:
            input_map = {
                key: spec["python_value"]
                if "python_value" in spec
                else {"dtype": spec["dtype"], "shape": spec["shape"]}
                for key, spec in args["input_map"].items()
            }
        name = args.get("name")
        if args.get("outer_name_scope") and name is not None:
            # A name scope around the call belongs to the caller's graph: the absolute scope it makes is the
            # same import (TensorFlow's nested-scope rule lets `_a` through there).
            name = f"{args['outer_name_scope']}/{name}/"
        import_args = {"input_map": input_map, "return_elements": args.get("return_elements"), "name": name}
    if args.get("format") == "binary_empty":
        assert import_args is None or not any(import_args.values())
        return lint_bytes(b"", name="graph.pb", input_type=f"{kind}-binary")
    return lint_text(case["graph_pbtxt"], input_type=f"{kind}-text", import_args=import_args)


def verdict(case: dict) -> tuple[str, set[str]]:
    """('rejects' or 'imports', the rules of tflint's errors)."""
    errors = {f.rule for f in lint_case(case) if f.severity >= Severity.ERROR}
    return ("rejects" if errors else "imports"), errors


def agrees(case: dict) -> bool:
    """Whether tflint's verdict is TensorFlow's (with the right rule for a rejection)."""
    said, rules = verdict(case)
    if case["verdict"] == "imports":
        return said == "imports"
    return expected_rule(case["message"]) in rules


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_agrees_with_tensorflow(case):
    said, rules = verdict(case)
    if case["id"] in KNOWN_DIFFERENCES:
        assert not agrees(case), f"{case['id']} now agrees with TensorFlow: remove it from KNOWN_DIFFERENCES"
        return
    if case["verdict"] == "imports":
        assert said == "imports", f"TensorFlow imports {case['description']!r}; tflint: {sorted(rules)}"
    else:
        wanted = expected_rule(case["message"])
        assert wanted is not None, f"no rule models TensorFlow's message {case['message']!r}"
        assert wanted in rules, f"TensorFlow: {case['message']!r}; tflint: {sorted(rules)}, expected {wanted}"


def test_agreement_numbers():
    # The figures the report quotes: every case agrees but the documented differences.
    agreeing = [case["id"] for case in CASES if agrees(case)]
    assert len(CASES) == 234
    assert set(KNOWN_DIFFERENCES) <= {case["id"] for case in CASES}
    assert len(agreeing) == len(CASES) - len(KNOWN_DIFFERENCES)


def test_uncalled_bodies_are_warnings_that_say_so():
    # TensorFlow imports these; the problem inside is still shown, as a warning.
    for case in CASES:
        # (TensorFlow shape-checks a body only with a caller's shapes: fn_uncalled_body_shape_error has nothing
        # to show, as in TensorFlow.)
        if not case["id"].startswith("fn_uncalled_") or case["id"] in (
            "fn_uncalled_valid",
            "fn_uncalled_body_shape_error",
        ):
            continue
        inside = [f for f in lint_case(case) if f.function == "f"]
        assert inside, case["id"]
        for finding in inside:
            assert finding.severity == Severity.WARNING, (case["id"], finding)
            assert finding.message.endswith("(never called: TF does not check it at import; calling it would fail)"), (
                finding.message
            )


def test_uncalled_functions_config_raises_them_back_to_errors():
    case = next(case for case in CASES if case["id"] == "fn_uncalled_unknown_op")
    findings = lint_text(case["graph_pbtxt"], {"uncalled-functions": "error"})
    assert [(f.rule, f.severity, f.function) for f in findings] == [("unknown-op", Severity.ERROR, "f")]


def test_import_contract_messages_are_tensorflows():
    # Where TensorFlow's own message is deterministic, tflint's import-contract finding carries it.
    for case in CASES:
        if case["verdict"] != "rejects" or expected_rule(case["message"]) != "import-contract":
            continue
        if case["id"] in ("im_two_bad_keys_short", "im_dtype_mismatch", "im_data_key_index_minus_one"):
            continue  # TF 2.21 garbles short names in that list; the replacement's name is the caller's
        messages = [f.message for f in lint_case(case) if f.rule == "import-contract"]
        assert any(message.endswith(case["message"]) for message in messages), (case["message"], messages)

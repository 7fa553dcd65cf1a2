"""The rule registry: every built-in rule module, by id.

A rule is a module with `ID`, `CATEGORY`, `DEFAULT_SEVERITY`, `OPTIONS` and
`check(graph, options)`; its docstring is its documentation. Rules of
category `compat` take `check(pair, options)` instead: they compare two
versions of a model (a `tflint.tf.compat.VersionPair`) in `tflint compat`. Registration is
explicit so that `tflint rules` and the docs list exactly what runs.

A rule's issues say what they are about (a node, an attr, a function, or a Place made by
`tflint.finding`'s `at_*` functions) and the engine places them (`tflint.engine.place`). A rule
imports nothing of `tflint.read` (the layer contract puts `rules` below it): what it needs from the
disk or the text it asks of the Artifact it is handed (`directory_listing()`,
`saved_model_files()`, `schema_uses()`, ...).

Optional constants, read by the engine (which names no rule itself):
- `CHECKS`: what check() receives, when not a graph (`tflint.tf.index.GraphIndex`):
  "unreadable-file" (the `tflint.read.load.Artifact` of a file that could not be
  read, checked whatever the config says) or "suppressions" (a file's
  `tflint.engine.suppress.Suppressions`, or a baseline's stale entries).
- `SUPPRESSIBLE = False`: no inline directive or baseline hides its findings.
- `COST`: about how long the rule takes on a large graph relative to others
  (hundredths of a second per 100k nodes on bench/'s generated graph; default
  1), so that the parallel planner hands out the costliest first.
- `SHARES`: the name of an analysis it builds on first use; rules sharing one
  run in the same process when a graph's rules are forked, so it is built once.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType

from tflint.rules import (
    allowed_values,
    api_added,
    api_keys_removed,
    asset_renamed,
    attr_minimum,
    attr_type_mismatch,
    call_signature,
    checkpoint_checksum,
    checkpoint_index,
    checkpoint_key_missing,
    checkpoint_mismatch,
    checkpoint_shard,
    checkpoint_unused,
    collection_unresolved,
    colocation_unresolved,
    control_input_order,
    cycle,
    dead_node,
    deprecated_op,
    device_spec_syntax,
    dtype_changed,
    duplicate_node_name,
    empty_graph,
    empty_op,
    function_name_conflict,
    function_ret,
    graph_version,
    hardcoded_device,
    import_contract,
    input_count,
    input_removed,
    input_syntax,
    interface_mismatch,
    invalid_graph,
    invalid_shape,
    invalid_suppression,
    large_constant,
    method_name_changed,
    missing_asset,
    missing_attr,
    missing_kernel,
    missing_serving_tags,
    missing_variables,
    newer_tensorflow,
    node_name_pattern,
    node_name_syntax,
    non_finite_constant,
    not_a_graph,
    opdef_wellformed,
    output_index_out_of_range,
    output_removed,
    recursive_function,
    required_input_added,
    shape_changed,
    shape_mismatch,
    signature_dtype,
    signature_removed,
    signature_shape,
    signature_unresolved,
    tag_set_removed,
    target_attr,
    target_attr_ignored,
    target_graph_version,
    target_node_name,
    target_op_missing,
    target_saver,
    target_text_schema,
    tensor_content,
    training_op_in_serving,
    type_attr_consistency,
    unknown_attr,
    unknown_function,
    unknown_op,
    unresolved_input,
    unsafe_op,
    unsupported_format,
    unused_suppression,
    warmup_record,
    warmup_request,
)

RULES: dict[str, ModuleType] = {
    module.ID: module
    for module in (
        invalid_graph,
        empty_graph,
        not_a_graph,
        unsupported_format,
        duplicate_node_name,
        unresolved_input,
        unknown_op,
        node_name_syntax,
        node_name_pattern,
        empty_op,
        input_syntax,
        control_input_order,
        colocation_unresolved,
        cycle,
        output_index_out_of_range,
        missing_attr,
        unknown_attr,
        attr_type_mismatch,
        allowed_values,
        attr_minimum,
        input_count,
        type_attr_consistency,
        device_spec_syntax,
        unknown_function,
        function_name_conflict,
        recursive_function,
        function_ret,
        call_signature,
        graph_version,
        deprecated_op,
        target_op_missing,
        target_attr,
        target_attr_ignored,
        target_graph_version,
        target_text_schema,
        target_node_name,
        target_saver,
        tensor_content,
        invalid_shape,
        shape_mismatch,
        opdef_wellformed,
        invalid_suppression,
        unused_suppression,
        signature_unresolved,
        collection_unresolved,
        signature_dtype,
        signature_shape,
        import_contract,
        interface_mismatch,
        missing_serving_tags,
        missing_asset,
        missing_variables,
        checkpoint_index,
        checkpoint_key_missing,
        checkpoint_mismatch,
        checkpoint_shard,
        checkpoint_checksum,
        checkpoint_unused,
        warmup_record,
        warmup_request,
        unsafe_op,
        training_op_in_serving,
        dead_node,
        hardcoded_device,
        missing_kernel,
        large_constant,
        non_finite_constant,
        # compat: compare two versions of a model (`tflint compat`), never run on one graph
        tag_set_removed,
        signature_removed,
        method_name_changed,
        input_removed,
        required_input_added,
        dtype_changed,
        shape_changed,
        output_removed,
        api_keys_removed,
        asset_renamed,
        newer_tensorflow,
        api_added,
    )
}


def all_rules() -> Mapping[str, ModuleType]:
    """Every rule tflint knows, by id."""
    return RULES


def get(rule_id: str) -> ModuleType:
    """The rule module with this id; KeyError names close matches."""
    try:
        return RULES[rule_id]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(rule_id, list(RULES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise KeyError(f"no rule {rule_id!r}{hint}") from None

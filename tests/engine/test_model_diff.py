"""`tflint diff` on pairs of real SavedModels against the ground truth written when they were generated.

tests/data/review/<case>/{old,new} were written by tools/gen_review_pairs.py
(TensorFlow 2.21, Keras 3), each side in its own process; expected.json holds
what TensorFlow and Keras say of the pair (parameter counts, op sets, which
variables' values differ, the signatures) and what the construction changed
(`structure`). The diff must report exactly that, and nothing else.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DATA

from tflint import protos
from tflint.api import diff_models
from tflint.tf.op_signatures import dtype_name

PAIRS = DATA / "review"
CASES = sorted(path.name for path in PAIRS.iterdir() if (path / "old").is_dir())


def _expected(case):
    return json.loads((PAIRS / case / "expected.json").read_text())


@pytest.fixture(scope="module")
def diffs():
    return {case: diff_models(PAIRS / case / "old", PAIRS / case / "new") for case in CASES}


def test_every_generated_case_is_here():
    assert CASES == sorted(
        [
            "dtype_changed",
            "input_reshaped",
            "layer_added",
            "op_swapped",
            "retrained",
            "same_model_exported_twice",
            "same_model_saved_twice",
            "signature_renamed",
        ]
    )


@pytest.mark.parametrize("case", CASES)
def test_parameters_are_keras_counts(case, diffs):
    expected = _expected(case)
    diff = diffs[case]
    assert [diff.old.parameters(), diff.new.parameters()] == expected["params"]


@pytest.mark.parametrize("case", CASES)
def test_op_set_changes_are_tensorflows(case, diffs):
    expected = _expected(case)
    assert diffs[case].ops_added() == expected["ops_added"]
    assert diffs[case].ops_removed() == expected["ops_removed"]


@pytest.mark.parametrize("case", CASES)
def test_weights_matched_by_name_and_compared_by_content(case, diffs):
    expected = _expected(case)
    diff = diffs[case]
    assert [w.name for w in diff.weights_added] == expected["weights_added"]
    assert [w.name for w in diff.weights_removed] == expected["weights_removed"]
    assert sorted(item.old.name for item in diff.weights_changed) == expected["weights_changed"]
    assert diff.weights_renamed == []


@pytest.mark.parametrize("case", CASES)
def test_signature_changes_are_the_recorded_ones(case, diffs):
    signatures = _expected(case)["signatures"]
    (graph,) = diffs[case].graphs
    old, new = signatures["old"], signatures["new"]
    renamed = dict(graph.signatures_renamed)
    assert sorted(set(old) - set(new)) == sorted(graph.signatures_removed + list(renamed))
    assert sorted(set(new) - set(old)) == sorted(graph.signatures_added + list(renamed.values()))
    changed: dict[str, list[str]] = {}
    for key in sorted(set(old) & set(new)):
        for direction in ("inputs", "outputs"):
            for name in old[key][direction]:
                a, b = old[key][direction][name], new[key][direction][name]
                if a["dtype"] != b["dtype"]:
                    what = f"{direction[:-1]} {name} dtype {dtype_name(a['dtype'])} -> {dtype_name(b['dtype'])}"
                    changed.setdefault(key, []).append(what)
                if a["shape"] != b["shape"]:
                    changed.setdefault(key, []).append(f"{direction[:-1]} {name} shape")
    reported = {
        key: sorted(text if " dtype " in text else text.split(" [")[0] for text in changes)
        for key, changes in graph.signatures_changed
    }
    assert reported == {key: sorted(changes) for key, changes in changed.items()}


def _node_changes(diff):
    (graph,) = diff.graphs
    return graph


@pytest.mark.parametrize("case", CASES)
def test_the_graph_changes_are_what_the_construction_changed(case, diffs):
    structure = _expected(case)["structure"]
    diff = diffs[case]
    graph = _node_changes(diff)
    kind = structure["kind"]
    if kind == "nothing":
        assert not diff.changed
        return
    assert diff.changed
    assert graph.functions_added == graph.functions_removed == []
    if kind == "weights only":
        assert graph.empty() and not diff.compat
    elif kind == "layer added":
        assert graph.nodes_removed == []
        in_bodies = [node.name for scope, node in graph.nodes_added if scope != "graph"]
        assert in_bodies and all(f"/{structure['scope']}_1/" in name for name in in_bodies)
        top = [node.name for scope, node in graph.nodes_added if scope == "graph"]
        assert f"classifier/{structure['scope']}/kernel" in top
    elif kind == "op swapped":
        old_op, new_op = structure["ops"]
        assert graph.nodes_added == graph.nodes_removed == []
        assert graph.nodes_changed
        for change in graph.nodes_changed:
            assert change.fields == (("op", old_op, new_op),)
            assert change.old_name.endswith(f"/{old_op}") and change.new_name.endswith(f"/{new_op}")
    elif kind == "dtype changed":
        old_type, new_type = structure["dtypes"]
        assert graph.nodes_added == graph.nodes_removed == []
        for change in graph.nodes_changed:
            assert change.old_name == change.new_name
            for what, before, after in change.fields:
                assert what.startswith("attr ") and before.replace(old_type, new_type) == after, change
    elif kind == "signature renamed":
        assert graph.signatures_renamed == [tuple(structure["keys"])]
        assert graph.nodes_added == graph.nodes_removed == []
        for change in graph.nodes_changed:  # the feed is renamed after the key, its consumer reads the new name
            assert all(what.startswith("input ") for what, _, _ in change.fields)
    elif kind == "input reshaped":
        assert graph.nodes_added == graph.nodes_removed == []
        assert {what for change in graph.nodes_changed for what, _, _ in change.fields} == {"attr shape"}
        (key, changes), *_ = graph.signatures_changed
        assert changes == [f"input {structure['input']} shape [?,8] -> [?,12]"]
    else:
        pytest.fail(f"no check for {kind!r}")


def test_retrained_weights_say_how_much_they_moved(diffs):
    for item in diffs["retrained"].weights_changed:
        assert item.change is not None
        assert item.change.total == item.change.compared > 0
        assert item.change.changed == 1.0
        assert item.change.relative is not None and item.change.relative > 0


def test_reshaped_weight_is_a_shape_change_not_a_measure(diffs):
    changed = {item.old.name: item for item in diffs["input_reshaped"].weights_changed}
    kernel = changed["classifier/hidden/kernel"]
    assert (kernel.old.shape, kernel.new.shape, kernel.change) == ((8, 16), (12, 16), None)


def test_contract_changes_come_from_compat(diffs):
    rules = {case: sorted(finding.rule for finding in diffs[case].compat) for case in CASES}
    assert rules["same_model_saved_twice"] == rules["retrained"] == rules["layer_added"] == []
    assert rules["dtype_changed"] == ["dtype-changed", "dtype-changed"]
    assert rules["input_reshaped"] == ["shape-changed"]
    assert "signature-removed" in rules["signature_renamed"] or "api-removed" in " ".join(rules["signature_renamed"])


def test_text_and_binary_forms_of_a_saved_model_diff_empty(tmp_path):
    """saved_model.pbtxt beside the same variables is the same model as saved_model.pb."""
    from google.protobuf import text_format

    source = PAIRS / "op_swapped" / "old"
    for form in ("binary", "text"):
        shutil.copytree(source, tmp_path / form, ignore=shutil.ignore_patterns("fingerprint.pb"))
    message = protos.SavedModel()
    message.ParseFromString((source / "saved_model.pb").read_bytes())
    (tmp_path / "text" / "saved_model.pb").unlink()
    (tmp_path / "text" / "saved_model.pbtxt").write_text(text_format.MessageToString(message))
    diff = diff_models(tmp_path / "binary", tmp_path / "text")
    assert not diff.changed


def test_node_order_is_not_a_change(tmp_path):
    message = protos.SavedModel()
    message.ParseFromString((PAIRS / "retrained" / "old" / "saved_model.pb").read_bytes())
    graph = message.meta_graphs[0].graph_def
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(reversed(nodes))
    for function in graph.library.function:
        body = list(function.node_def)
        del function.node_def[:]
        function.node_def.extend(reversed(body))
    shutil.copytree(PAIRS / "retrained" / "old", tmp_path / "reordered")
    (tmp_path / "reordered" / "saved_model.pb").write_bytes(message.SerializeToString())
    assert not diff_models(PAIRS / "retrained" / "old", tmp_path / "reordered").changed


def test_exported_twice_holds_variables_under_other_checkpoint_keys(diffs):
    """The pair really is the hard case: Keras put the same variables at other keys, and nothing changed."""
    diff = diffs["same_model_exported_twice"]
    moved = [name for name in diff.old.weights if diff.old.weights[name].source != diff.new.weights[name].source]
    assert moved and not diff.changed


def test_saved_twice_numbers_its_functions_apart():
    from tflint.read.load import load_path

    names = [
        sorted(
            function.signature.name for function in load_path(str(PAIRS / case / side)).graphs[0].graph.library.function
        )
        for case, side in (("same_model_saved_twice", "old"), ("same_model_saved_twice", "new"))
    ]
    assert names[0] != names[1]


def test_checkpoint_entries_with_the_same_stored_checksum_are_not_read(tmp_path):
    """Equality of a variable is TensorFlow's CRC-32C in the index: bytes altered behind it go unseen, by design."""
    shutil.copytree(PAIRS / "retrained" / "old", tmp_path / "a")
    shutil.copytree(PAIRS / "retrained" / "old", tmp_path / "b")
    from tflint.read.tensor_bundle import read_bundle_index

    index = read_bundle_index(str(tmp_path / "b" / "variables" / "variables.index"))
    kernel = next(entry for entry in index.entries.values() if entry.dtype == 1 and entry.size >= 64)
    data = tmp_path / "b" / "variables" / "variables.data-00000-of-00001"
    with open(data, "r+b") as file:  # a float kernel's bytes zeroed, its size kept: only a read could tell
        file.seek(kernel.offset)
        file.write(bytes(kernel.size))
    assert not diff_models(tmp_path / "a", tmp_path / "b").changed
    retrained = diff_models(PAIRS / "retrained" / "old", PAIRS / "retrained" / "new")  # checksums differ: read
    assert retrained.weights_changed and all(item.change is not None for item in retrained.weights_changed)


def _frozen(path, weights: dict[str, bytes]) -> None:
    graph = protos.GraphDef()
    graph.node.add(name="x", op="Placeholder").attr["dtype"].type = 1
    for name, content in weights.items():
        node = graph.node.add(name=name, op="Const")
        node.attr["dtype"].type = 1
        tensor = node.attr["value"].tensor
        tensor.dtype = 1
        tensor.tensor_shape.dim.add(size=len(content) // 4)
        tensor.tensor_content = content
    path.write_bytes(graph.SerializeToString())


def test_weights_left_in_mapped_files_are_compared_in_pieces(tmp_path, monkeypatch):
    from array import array

    from tflint.read import mapped, weights
    from tflint.tf import tensors

    monkeypatch.setattr(mapped, "MAP_MIN_BYTES", 1)
    monkeypatch.setattr(mapped, "STRIP_MIN_BYTES", 1)
    monkeypatch.setattr(weights, "PIECE_BYTES", 64)
    values = array("f", range(1000)).tobytes()
    moved = array("f", [v * 2 if v == 999 else v for v in range(1000)]).tobytes()
    _frozen(tmp_path / "old.pb", {"same": values, "moved": values})
    _frozen(tmp_path / "new.pb", {"same": values, "moved": moved})
    reads = []
    read_into = tensors.MappedBytes.read_into
    monkeypatch.setattr(
        tensors.MappedBytes, "read_into", lambda self, *args: reads.append(args) or read_into(self, *args)
    )
    diff = diff_models(tmp_path / "old.pb", tmp_path / "new.pb")
    assert (
        len(reads) == 2 * (4000 // 64 + 1) * 3
    )  # by position: both compared whole (the change is in the last piece), "moved" again to measure
    assert [item.old.name for item in diff.weights_changed] == ["moved"]
    change = diff.weights_changed[0].change
    assert (change.total, change.compared, change.changed) == (1000, 1000, 0.001)

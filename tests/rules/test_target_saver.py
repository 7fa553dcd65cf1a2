"""target-saver: saved collections import_meta_graph's default Saver refuses (a MetaGraphDef without saver_def).

Each case was imported with import_meta_graph into TF 1.15, 2.4 and 2.21, which agreed.
"""

from __future__ import annotations

import pytest
from conftest import DATA, lint_text, pinned

from tflint.api import lint_paths, min_tf

RULE = "target-saver"
TABLE = (
    'graph_def {\n  node { name: "t" op: "MutableHashTableV2" attr { key: "key_dtype" value { type: DT_STRING } }\n'
    '    attr { key: "value_dtype" value { type: DT_INT64 } } }\n'
    '  node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }\n'
    '    attr { key: "shape" value { shape { } } } }\n'
    '  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }\n'
    '    attr { key: "value" value { tensor { dtype: DT_FLOAT } } } }\n}\n'
)


def collection(key: str, *entries: str) -> str:
    values = " ".join(f'value: "{entry}"' for entry in entries)
    return f'collection_def {{ key: "{key}" value {{ node_list {{ {values} }} }} }}\n'


@pytest.mark.parametrize(
    "pbtxt, targets, expected",
    [
        pytest.param(TABLE, "2.4", [], id="no-collections"),
        # A variable's tensor: what Saver saves.
        pytest.param(TABLE + collection("saveable_objects", "v:0"), "2.4", [], id="variable"),
        # An op's name (TF 1.x writes a MutableHashTable so): `can't convert Operation 't' to Tensor`.
        pytest.param(TABLE + collection("saveable_objects", "t"), "2.4", [(RULE, "t", 2)], id="op"),
        pytest.param(TABLE + collection("saveable_objects", "v"), "2.4", [(RULE, "v", 4)], id="variable-op-name"),
        # Every release's loader fails on it, the newest too.
        pytest.param(TABLE + collection("saveable_objects", "t"), "1.15,2.21", [(RULE, "t", 2)], id="every-release"),
        # A tensor of an op that is not a variable: `Variable to save is not a Variable`.
        pytest.param(TABLE + collection("variables", "c:0"), "2.4", [(RULE, "c", 6)], id="not-a-variable"),
        # A saver_def: import_meta_graph builds the Saver from it, not from the collections.
        pytest.param(
            TABLE
            + collection("saveable_objects", "t")
            + 'saver_def { filename_tensor_name: "save/Const:0" save_tensor_name: "save/control_dependency:0"\n'
            + '  restore_op_name: "save/restore_all" }\n',
            "2.4",
            [],
            id="saver-def",
        ),
        # Other collections are not saved.
        pytest.param(TABLE + collection("table_initializer", "t"), "2.4", [], id="other-collection"),
        # A missing node fails restoring the collection, before the Saver: not this rule's.
        pytest.param(TABLE + collection("saveable_objects", "gone"), "2.4", [], id="missing-node"),
        pytest.param(TABLE + collection("saveable_objects", "t"), None, [], id="no-target"),
    ],
)
def test_rule(pbtxt, targets, expected):
    config = {"target-tf": targets} if targets else None
    assert pinned(lint_text(pbtxt, config, name="graph.meta.pbtxt"), rule=RULE) == expected


def test_the_real_graph_tensorflow_fails_to_load():
    # tests/data/real/tf1_lookup_tables.meta: every release's import_meta_graph raised
    # `TypeError: can't convert Operation 'dense' to Tensor` (tests/data/target_tf/verdicts.jsonl).
    report = lint_paths([DATA / "real" / "tf1_lookup_tables.meta"], {}, target_tf="2.18", baseline=False)
    found = sorted((f.node, f.message) for f in report.findings if f.rule == RULE)
    assert [node for node, _ in found] == ["dense", "mutable"]
    assert found[0][1] == (
        "TF 2.18: collection 'saveable_objects' lists 'dense' (MutableDenseHashTableV2), an op, not a tensor: "
        "import_meta_graph builds a default Saver (no saver_def) and fails on it"
    )
    assert min_tf(DATA / "real" / "tf1_lookup_tables.meta").blockers == ("target-saver",)


def test_a_saved_model_meta_graph_is_loaded_the_same_way():
    # The TF1 SavedModel loader imports each meta graph with the same code (_import_meta_graph_with_return_elements).
    text = 'saved_model_schema_version: 1\nmeta_graphs {\nmeta_info_def { tags: "serve" }\n'
    text += TABLE + collection("saveable_objects", "t") + "}\n"
    assert pinned(lint_text(text, {"target-tf": "2.4"}, name="saved_model.pbtxt"), rule=RULE) == [(RULE, "t", 5)]

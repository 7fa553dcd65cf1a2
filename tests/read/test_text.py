"""The fast text reader agrees with protobuf's parser, positions included, or steps aside."""

from __future__ import annotations

import random

import pytest
from conftest import CORPUS, DATA, WILD, shared

from tflint.read import load, sniff
from tflint.read import text as text_reader
from tflint.read.load import load_bytes
from tflint.read.text import NotCanonical
from tflint.tf.index import GraphIndex
from tflint.tf.registry import OpRegistry

TEXT_FILES = sorted(
    path
    for folder in (CORPUS, DATA / "real", WILD)
    if folder.exists()
    for path in folder.rglob("*")
    if path.is_file()
    and path.suffix not in (".md", ".jsonl", ".json")
    and sniff.looks_like_text(path.read_bytes()[:4096])
)


def _params(paths):
    """`paths` as parameters; the wild corpus's are in the `shared` group."""
    return [pytest.param(path, marks=[shared] if WILD in path.parents else []) for path in paths]


def general_reader(monkeypatch):
    def refuse(*args, **kwargs):
        raise NotCanonical("forced")

    monkeypatch.setattr(load, "_read_canonical_text", refuse)


def snapshot(artifact):
    """Everything rules can observe of an artifact: nodes, attrs, positions, the rest of the message."""
    if artifact.failure:
        return ("failure", artifact.failure)
    graphs = []
    registry = OpRegistry([], include_bundled=False)
    for source in artifact.graphs:
        index = GraphIndex(
            source.graph, registry, nodes=source.node_list(), positions=source.positions, graph_id=source.graph_id
        )
        nodes = []
        for node in index.all_nodes():
            attrs = {key: value.SerializeToString(deterministic=True) for key, value in node.attr.items()}
            positions = {key: node.attr_position(key) for key in node.attr}
            nodes.append(
                (
                    node.function,
                    node.name,
                    node.op,
                    node.raw_inputs,
                    node.device,
                    attrs,
                    node.line,
                    node.column,
                    positions,
                )
            )
        functions = [index.function_position(scope.function_ordinal) for scope in index.function_scopes]
        rest = source.graph.__class__()
        rest.CopyFrom(source.graph)
        del rest.node[:]
        graphs.append((source.label, nodes, functions, rest.SerializeToString(deterministic=True)))
    return graphs


def took_fast_path(data: bytes, name: str) -> bool:
    artifact = load.Artifact(path=name, form="text")
    text = data.decode("utf-8")
    try:
        load._read_canonical_text(artifact, text, sniff.text_message(text))
    except NotCanonical:
        return False
    return True


@pytest.mark.parametrize("path", _params(TEXT_FILES), ids=lambda p: p.name[:80])
def test_fast_reader_matches_general_reader(path, monkeypatch):
    data = path.read_bytes()
    fast = snapshot(load_bytes(data, path.name))
    general_reader(monkeypatch)
    slow = snapshot(load_bytes(data, path.name))
    assert fast == slow


def test_canonical_corpus_files_take_the_fast_path():
    names = [
        "b_keras_cnn_frozen.pbtxt",
        "a_tf1_saver_ref.graph.pbtxt",
        "d_tf1_control_flow_v1.pbtxt",
        "a_tf1_saver_ref.meta.pbtxt",
        "tf12_saver.meta.pbtxt",
    ]
    for name in names:
        path = CORPUS / name
        if path.exists():
            assert took_fast_path(path.read_bytes(), name), name
    one_line = CORPUS / "tf12_saver_oneline.meta.pbtxt"
    if one_line.exists():
        assert not took_fast_path(one_line.read_bytes(), one_line.name)


CANONICAL = """\
node {
  name: "a"
  op: "Const"
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_FLOAT
        tensor_shape {
        }
        float_val: 1.5
      }
    }
  }
}
node {
  name: "b\\303\\251"
  op: "Identity"
  input: "a"
  input: "^a"
  device: "/device:CPU:0"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
node {
  op: "NoOp"
}
library {
  function {
    signature {
      name: "f"
    }
    node_def {
      name: "inner"
      op: "NoOp"
    }
  }
}
versions {
  producer: 27
}
"""


STRAY = ['"', "{", "}", "\\", " ", "#", "x", ":", "\n"]


def edit(lines: list[str], rng: random.Random, stray: list[str] = STRAY) -> None:
    """One small random edit of `lines`, in place: a line deleted, doubled or swapped, a stray character, less indentation."""
    kind = rng.randrange(5)
    index = rng.randrange(len(lines))
    if kind == 0:
        del lines[index]
    elif kind == 1:
        lines.insert(index, lines[index])
    elif kind == 2 and index + 1 < len(lines):
        lines[index], lines[index + 1] = lines[index + 1], lines[index]
    elif kind == 3:
        line = lines[index]
        cut = rng.randrange(len(line) + 1)
        lines[index] = line[:cut] + rng.choice(stray) + line[cut:]
    else:
        lines[index] = lines[index].replace("  ", " ", 1)


def mutations(text: str, count: int, seed: int):
    """`count` small random edits of canonical text, one edit each."""
    rng = random.Random(seed)
    lines = text.splitlines(keepends=True)
    for _ in range(count):
        edited = list(lines)
        edit(edited, rng)
        yield "".join(edited)


def test_hand_written_canonical_graph(monkeypatch):
    data = CANONICAL.encode()
    assert took_fast_path(data, "g.pbtxt")
    fast = snapshot(load_bytes(data, "g.pbtxt"))
    nodes = fast[0][1]
    assert [(n[1], n[6], n[7]) for n in nodes[:3]] == [("a", 2, 3), ("bé", 23, 3), ("", 35, 1)]
    assert nodes[0][8] == {"dtype": (5, 5), "value": (11, 5)}
    general_reader(monkeypatch)
    assert snapshot(load_bytes(data, "g.pbtxt")) == fast


@pytest.mark.parametrize("seed", range(6))
def test_mutated_text_agrees(seed, monkeypatch):
    results = []
    for text in mutations(CANONICAL, 40, seed):
        results.append(snapshot(load_bytes(text.encode(), "g.pbtxt")))
    general_reader(monkeypatch)
    for text, fast in zip(mutations(CANONICAL, 40, seed), results):
        assert snapshot(load_bytes(text.encode(), "g.pbtxt")) == fast, text


def _node(*lines: str) -> str:
    return "node {\n" + "".join(f"  {line}\n" for line in lines) + "}\n"


def _attr(key: str, *value_lines: str) -> tuple[str, ...]:
    body = ("value {", *(f"  {line}" for line in value_lines), "}") if value_lines else ()
    return ("attr {", f'  key: "{key}"', *(f"  {line}" for line in body), "}")


ATTRS = (*_attr("T", "type: DT_FLOAT"), *_attr("shape", "shape {", "  dim {", "    size: 2", "  }", "}"))
# The same attrs text after headers of every shape: with and without name, op, inputs and device,
# and with each written out empty.
HEADER_CORNERS = "".join(
    _node(*header, *ATTRS)
    for header in (
        ('name: "a"', 'op: "Identity"', 'input: "x"', 'device: "/cpu:0"'),
        ('name: "b"', 'op: ""', 'input: "x"', 'input: "^a"'),
        ('name: "c"', 'op: "Identity"', 'device: ""'),
        ('name: "d"', 'op: ""', 'device: ""'),
        ('name: ""', 'op: "Identity"', 'input: "x"'),
        ('op: "Identity"', 'input: "x"'),
        ('op: ""',),
        (),
        ('name: "e"',),
        ('name: "f\\"g"', 'op: ""', 'input: "x"'),
    )
) + _node('name: "x"', 'op: "Placeholder"')

# Canonical graphs that exercise the fast reader's corners: (text, whether the fast path reads it).
CORNERS = [
    pytest.param(
        _node('name: "a"', 'op: "Const"', *_attr("dtype", "type: DT_FLOAT"), *_attr("dtype", "type: DT_INT32")),
        True,
        id="repeated-attr-key",
    ),
    pytest.param(
        _node('name: "a"', 'op: "Const"', *_attr("v", "f: 1.5f"), *_attr("w", "list {", "  i: [1, 2]", "}")),
        True,
        id="values-only-text_format-reads",
    ),
    pytest.param(_node('name: "a"', 'op: "Const"', *_attr("v", "i: 1  # one")), True, id="comment-in-value"),
    pytest.param(_node('name: "a"', 'op: "Const"', *_attr("v", "i: 1", "i: 2")), False, id="value-text_format-refuses"),
    pytest.param(
        _node('name: "a"', 'op: "NoOp"', *_attr("empty"), *_attr("t", "type: DT_FLOAT")), True, id="attr-without-value"
    ),
    pytest.param(
        _node('name: "a"', 'op: "NoOp"', "attr {", '  key: "e"', "  value {", "  }", "}"), True, id="empty-value"
    ),
    pytest.param(
        _node(
            'name: "a"',
            'op: "NoOp"',
            *_attr("t", "type: DT_FLOAT"),
            "experimental_debug_info {",
            '  original_node_names: "x"',
            "}",
        ),
        True,
        id="debug-info",
    ),
    pytest.param(
        _node(
            'name: "a"',
            'op: "NoOp"',
            "experimental_debug_info {",
            '  original_node_names: "x"',
            "}",
            *_attr("t", "type: DT_FLOAT"),
        ),
        False,
        id="attr-after-debug-info",
    ),
    pytest.param(_node('name: "a\\"b"', 'op: "NoOp"', 'input: "c\\\\d"', 'device: "\\x41"'), True, id="escaped-header"),
    pytest.param(_node('op: "NoOp"', 'name: "a"'), False, id="header-out-of-order"),
    pytest.param(
        _node('op: "N\\x6fOp"', 'input: "x"') + _node('name: "x"', 'op: "NoOp"'), True, id="escaped-header-without-name"
    ),
    pytest.param(_node('name: "a"', 'op: "NoOp"', "unknown_field: 1"), False, id="unknown-field"),
    pytest.param(
        _node('name: "a"', 'op: "NoOp"') + "node {\n}\n" + _node('name: "b"', 'op: "NoOp"'), True, id="empty-node"
    ),
    pytest.param(_node('name: "a"', 'op: "NoOp"').rstrip("\n"), True, id="no-final-newline"),
    pytest.param(
        "versions {\n  producer: 1\n}\n"
        + _node('name: "a"', 'op: "NoOp"')
        + "library {\n}\n"
        + _node('name: "b"', 'op: "NoOp"'),
        True,
        id="nodes-between-fields",
    ),
    pytest.param(_node('name: "a"', 'op: "NoOp"') + 'node { name: "b" }\n', False, id="one-line-node"),
    pytest.param(CANONICAL.replace("\n", "\r\n"), True, id="windows-line-ends"),
    pytest.param(
        _node('name: "a\rb"', 'op: "Const"', *_attr("s", 's: "c\rd"')).replace("\n", "\r\n"),
        True,
        id="raw-cr-in-strings",
    ),
    pytest.param(_node('name: "a"', 'op: "NoOp"').replace('"a"\n', '"a"\r'), False, id="lone-cr"),
    # Attr positions: a node places its block's key lines after its header (one line per field it
    # sets), unless its header writes out an empty op or device, a line the node cannot see.
    *[
        pytest.param(HEADER_CORNERS, True, id="headers-with-empty-fields"),
        pytest.param(HEADER_CORNERS + _node('name: "n"', 'op: "NoOp"', *ATTRS), True, id="headers-then-shared-block"),
    ],
]


@pytest.mark.parametrize("text, fast_path", CORNERS)
def test_corner_cases_agree_with_the_general_reader(text, fast_path, monkeypatch):
    data = text.encode()
    assert took_fast_path(data, "g.pbtxt") == fast_path
    fast = snapshot(load_bytes(data, "g.pbtxt"))
    general_reader(monkeypatch)
    assert snapshot(load_bytes(data, "g.pbtxt")) == fast


def test_attr_blocks_with_equal_hashes_stay_apart(monkeypatch):
    data = (
        (CORPUS / "b_keras_cnn_frozen.pbtxt").read_bytes()
        if (CORPUS / "b_keras_cnn_frozen.pbtxt").exists()
        else CANONICAL.encode()
    )
    expected = snapshot(load_bytes(data, "g.pbtxt"))
    monkeypatch.setattr(text_reader, "hash", lambda text: len(text) % 3, raising=False)  # collisions everywhere
    assert snapshot(load_bytes(data, "g.pbtxt")) == expected


# -- reading a big GraphDef text in two processes (text_reader.read_nodes_split) -----------------

GRAPHDEF_TEXTS = [
    path
    for path in TEXT_FILES
    if WILD not in path.parents and sniff.text_message(path.read_text("utf-8", "replace")) == "GraphDef"
]


def split_everything(monkeypatch):
    """Every GraphDef text is read in two processes, however small."""
    monkeypatch.setattr(text_reader, "SPLIT_MIN_CHARS", 0)


def shared_attr_sets(artifact) -> int:
    return len({id(node.attr) for source in artifact.graphs for node in source.node_list()})


def ordinals(artifact) -> list[int]:
    return [node.ordinal for source in artifact.graphs for node in source.node_list()]


@pytest.mark.parametrize("path", GRAPHDEF_TEXTS[:12] + GRAPHDEF_TEXTS[-6:], ids=lambda p: p.name[:80])
def test_split_read_matches_one_reader(path, monkeypatch):
    data = path.read_bytes()
    whole = load_bytes(data, path.name)
    split_everything(monkeypatch)
    split = load_bytes(data, path.name, workers=2)
    assert snapshot(split) == snapshot(whole)
    assert ordinals(split) == ordinals(whole)


def test_split_read_of_a_generated_graph_shares_attrs_across_halves(monkeypatch):
    import importlib.util

    from test_bench import BENCH

    spec = importlib.util.spec_from_file_location("gen_graph", BENCH / "gen_graph.py")
    gen_graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_graph)
    data = gen_graph.graph_text(gen_graph.build_graph(3000, seed=4)).encode()
    whole = load_bytes(data, "g.pbtxt")
    split_everything(monkeypatch)
    split = load_bytes(data, "g.pbtxt", workers=2)
    assert snapshot(split) == snapshot(whole)
    assert ordinals(split) == list(range(3000))
    # A block read in both halves is one dict, as with one reader (analyses memoize on it);
    # only blocks whose first occurrence is in the second half are new objects, once each.
    assert shared_attr_sets(split) == shared_attr_sets(whole)


@pytest.mark.parametrize("seed", range(3))
def test_split_read_of_mutated_text_agrees(seed, monkeypatch):
    split_everything(monkeypatch)
    results = [snapshot(load_bytes(text.encode(), "g.pbtxt", workers=2)) for text in mutations(CANONICAL, 30, seed)]
    general_reader(monkeypatch)
    for text, split in zip(mutations(CANONICAL, 30, seed), results):
        assert snapshot(load_bytes(text.encode(), "g.pbtxt")) == split, text


def test_split_read_survives_a_failing_child(monkeypatch):
    data = CANONICAL.encode()
    whole = snapshot(load_bytes(data, "g.pbtxt"))

    def fail(*args):
        raise RuntimeError("the child breaks")

    split_everything(monkeypatch)
    monkeypatch.setattr(text_reader, "_portable", fail)
    artifact = load_bytes(data, "g.pbtxt", workers=2)
    assert snapshot(artifact) == whole
    assert ordinals(artifact) == list(range(len(ordinals(artifact))))


def test_split_read_when_upb_refuses_a_value_the_child_encoded(monkeypatch):
    """The child sends values as encoded, undecoded: if one does not decode, this process reads that half."""
    node = 'node {{\n  name: "n{}"\n  op: "Identity"\n  attr {{\n    key: "T"\n    value {{\n      type: {}\n'
    node += "    }}\n  }}\n}}\n"
    data = "".join(node.format(number, ("DT_FLOAT", "DT_INT32")[number % 2]) for number in range(20)).encode()
    whole = snapshot(load_bytes(data, "g.pbtxt"))
    encoded = text_reader.message_bytes

    def broken(text, descriptor):  # bytes upb refuses (a truncated varint) for every `type:` value
        return b"\x08" if text.strip().startswith("type:") else encoded(text, descriptor)

    split_everything(monkeypatch)
    monkeypatch.setattr(text_reader, "message_bytes", broken)
    rebuilt = []
    original = text_reader.FastReader.rebuilt

    def recorded(self, *args):
        rebuilt.append(original(self, *args))
        return rebuilt[-1]

    monkeypatch.setattr(text_reader.FastReader, "rebuilt", recorded)
    artifact = load_bytes(data, "g.pbtxt", workers=2)
    assert rebuilt == [None]  # the child's half was read again here
    assert snapshot(artifact) == whole
    assert ordinals(artifact) == list(range(len(ordinals(artifact))))


def test_split_read_places_attrs_after_headers_with_an_empty_op_or_device_written_out(monkeypatch):
    """An empty op or device written out moves a node's attrs a line down: in the child's half too."""
    headers = ['  op: "Identity"\n', '  op: ""\n', '  op: "Identity"\n  device: ""\n', '  op: ""\n  device: ""\n']
    node = '{}  attr {{\n    key: "T"\n    value {{\n      type: DT_FLOAT\n    }}\n  }}\n}}\n'
    names = ['node {{\n  name: "n{}"\n', "node {{\n", 'node {{\n  name: "n\\303\\251{}"\n']  # one with escapes
    data = "".join(
        node.format(names[1 if number % 5 == 0 else 2 if number % 7 == 3 else 0].format(number) + headers[number % 4])
        for number in range(40)
    ).encode()
    whole = load_bytes(data, "g.pbtxt")
    split_everything(monkeypatch)
    split = load_bytes(data, "g.pbtxt", workers=2)
    assert snapshot(split) == snapshot(whole)
    lines = [node.attr_position("T") for node in split.graphs[0].node_list()]
    assert lines == [node.attr_position("T") for node in whole.graphs[0].node_list()]
    assert len(set(lines)) == 40


def test_split_read_when_no_process_can_be_forked(monkeypatch):
    import os

    data = CANONICAL.encode()
    whole = snapshot(load_bytes(data, "g.pbtxt"))

    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    split_everything(monkeypatch)
    monkeypatch.setattr(os, "fork", no_fork)
    artifact = load_bytes(data, "g.pbtxt", workers=2)
    assert snapshot(artifact) == whole
    assert ordinals(artifact) == list(range(len(ordinals(artifact))))


def test_split_read_of_every_header_shape_agrees(monkeypatch):
    data = (HEADER_CORNERS * 3).encode()  # the split falls in the middle of the corners
    whole = snapshot(load_bytes(data, "g.pbtxt"))
    split_everything(monkeypatch)
    assert snapshot(load_bytes(data, "g.pbtxt", workers=2)) == whole
    general_reader(monkeypatch)
    assert snapshot(load_bytes(data, "g.pbtxt")) == whole


def test_values_decoded_together_equal_values_decoded_alone():
    from tflint import protos

    encoded = [
        protos.AttrValue(type=1).SerializeToString(),
        protos.AttrValue(s=b"\x00" * 300).SerializeToString(),
        b"",
        protos.AttrValue(tensor=protos.TensorProto(dtype=1, tensor_content=b"\x01" * 200)).SerializeToString(),
    ]
    decoded = text_reader.decoded_together(encoded)
    assert [value.SerializeToString() for value in decoded] == encoded
    assert text_reader.decoded_together([]) == []


def test_values_upb_refuses_together_are_read_one_by_one(monkeypatch):
    data = CANONICAL.encode()
    expected = snapshot(load_bytes(data, "g.pbtxt"))
    calls = []

    def refuse(encoded):
        calls.append(len(encoded))
        raise ValueError("refused")  # as a DecodeError would be

    monkeypatch.setattr(text_reader, "decoded_together", refuse)
    assert took_fast_path(data, "g.pbtxt")
    assert snapshot(load_bytes(data, "g.pbtxt")) == expected
    assert calls and calls[0] > 0


def test_the_split_point_is_a_node_line_never_the_end_of_another_line():
    from tflint.read.text import _line_starting

    text = 'node {\n  name: "a"\n}\n# a subnode {\nnode {\n  name: "b"\n}\n'
    middle = text.index("node {\n", 10)  # inside the comment line
    assert _line_starting(text, "node {\n", middle) == text.index("\nnode {\n", middle) + 1
    assert _line_starting(text, "node {\n", 0) == 0
    assert _line_starting(text, "node {\n", len(text) - 3) == -1

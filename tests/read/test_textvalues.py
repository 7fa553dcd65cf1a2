"""textvalues agrees with protobuf's text parser: wire bytes of the same message, or None.

The contract: bytes only for text that `text_format.Parse` accepts, and then
the bytes decode to its message (compared serialized, so NaNs and -0.0 count
bit for bit); None for anything else. Checked on every distinct attr value of
the corpus, the wild graphs, tests/data and generated graphs, on random
AttrValues as protobuf prints them, on those texts mutated, and on whole
graph files and what the fast reader leaves of them around their nodes.
"""

from __future__ import annotations

import importlib.util
import random
import re
import struct
import warnings
from functools import cache

import pytest
from conftest import CORPUS, DATA, REPO, WILD, shared
from google.protobuf import text_encoding, text_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_text import edit

from tflint import protos
from tflint.read import load, sniff
from tflint.read.text import FastReader
from tflint.read.textvalues import _LAYOUTS, _bytes_literal, _token_bytes, message_bytes

SETTINGS = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def attr_value_bytes(text: str) -> bytes | None:
    return message_bytes(text, protos.AttrValue.DESCRIPTOR)


def parsed(text: str, message_class=protos.AttrValue) -> bytes | None:
    """text_format's message for `text`, serialized; None when it refuses the text."""
    message = message_class()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unicode_escape's DeprecationWarning for `\q`
        try:
            text_format.Parse(text, message, descriptor_pool=protos.POOL)
        except (text_format.ParseError, ValueError, RecursionError):
            return None
    return message.SerializeToString(deterministic=True)


def transcoded(text: str, message_class=protos.AttrValue) -> bytes | None:
    """message_bytes' message for `text`, serialized, after checking the contract."""
    data = message_bytes(text, message_class.DESCRIPTOR)
    if data is None:
        return None
    expected = parsed(text, message_class)
    assert expected is not None, f"bytes for text that text_format refuses:\n{text[:2000]}"
    got = message_class.FromString(data).SerializeToString(deterministic=True)
    assert got == expected, text[:2000]
    return got


# An attr map entry at any indentation: nodes, function bodies, values' own func attrs.
ATTR_ENTRY = re.compile(
    r'(?P<indent> *)attr \{\n(?P=indent)  key: "(?:[^"\\\n]|\\.)*"\n'
    r"(?:(?P=indent)  value \{\n(?P<value>(?:(?P=indent)    [^\n]*\n)*)(?P=indent)  \}\n)?"
    r"(?P=indent)\}\n"
)


def value_texts(text: str) -> list[str]:
    """Every attr value body in a text graph, as a reader's regex cuts it out."""
    return [match.group("value") for match in ATTR_ENTRY.finditer(text) if match.group("value") is not None]


@cache
def _generator():
    spec = importlib.util.spec_from_file_location("gen_graph", REPO / "bench" / "gen_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def text_files(wild: bool = False) -> tuple[tuple[str, str], ...]:
    """(name, text) of every text graph beside the tests (and of the wild corpus: the `shared` group)."""
    found = []
    for folder in (DATA, WILD) if wild else (DATA,):  # DATA holds CORPUS
        for path in sorted(folder.rglob("*")) if folder.exists() else ():
            data = (
                path.read_bytes() if path.is_file() and path.suffix not in (".md", ".jsonl", ".json", ".txt") else b""
            )
            if not data or not sniff.looks_like_text(data[:4096]):
                continue
            try:
                found.append((path.name, data.decode("utf-8")))
            except UnicodeDecodeError:
                continue
    return tuple(found)


@cache
def file_values(wild: bool = False) -> tuple[str, ...]:
    """The distinct attr value texts of every text graph beside the tests (`wild`: and of the wild corpus)."""
    found: dict[str, None] = {}
    for _, text in text_files(wild):
        found.update(dict.fromkeys(value_texts(text)))
    return tuple(found)


@cache
def generated_texts() -> tuple[str, ...]:
    gen_graph = _generator()
    return tuple(gen_graph.graph_text(gen_graph.build_graph(2000, seed=seed)) for seed in range(3))


@cache
def generated_values() -> tuple[str, ...]:
    found: dict[str, None] = {}
    for text in generated_texts():
        found.update(dict.fromkeys(value_texts(text)))
    return tuple(found)


@pytest.mark.parametrize(
    "values",
    [
        pytest.param(file_values, id="files"),
        pytest.param(generated_values, id="generated"),
        pytest.param(lambda: file_values(wild=True), id="wild", marks=shared),
    ],
)
def test_every_distinct_value_agrees_and_nearly_all_are_transcoded(values):
    texts = values()
    assert len(texts) >= 100
    covered = sum(transcoded(text) is not None for text in texts)
    # The fast path must really be the path: falling back to text_format is 50x slower.
    assert covered >= 0.99 * len(texts), [text for text in texts if attr_value_bytes(text) is None][:5]


@pytest.mark.parametrize("wild", [pytest.param(False, id="tests"), pytest.param(True, id="wild", marks=shared)])
def test_whole_files_agree(wild):
    files = [(name, text) for name, text in text_files(wild) if len(text) <= 300_000] + [
        ("generated", text) for text in generated_texts()
    ]
    missed = []
    for name, text in files:
        if transcoded(text, getattr(protos, sniff.text_message(text))) is None:
            missed.append(name)
    # Files TensorFlow wrote are in its layout throughout (TensorFlow's own test data has comments).
    written = {path.name for path in [*CORPUS.glob("*.pbtxt"), *(DATA / "real").glob("*.pbtxt")]} - {
        "tf12_saver_oneline.meta.pbtxt"
    }
    assert not written & set(missed) and "generated" not in missed


def test_residuals_of_canonical_files_are_transcoded():
    # What the fast reader leaves around the nodes (function libraries, op lists, versions) is
    # read through message_bytes too; for files TensorFlow wrote, it must not fall back.
    names = [
        "a_tf1_saver_ref.meta.pbtxt",
        "tf12_saver.meta.pbtxt",
        "tf2_keras_functional.saved_model.pbtxt",
        "b_keras_cnn_frozen.pbtxt",
    ]
    texts = [text for name, text in text_files() if name in names] + list(generated_texts())
    assert len(texts) >= 4
    for text in texts:
        kind = sniff.text_message(text)
        _, _, residual, _ = FastReader().read_nodes(text, load._NODE_DEPTH[kind])
        assert transcoded(residual, getattr(protos, kind)) is not None, residual[:2000]


# Edge cases: (text, whether it is transcoded). Either way transcoded() checks the contract.
EDGES = [
    ("", True),
    ("i: -1\n", True),
    ("i: 9223372036854775807\n", True),
    ("i: 9223372036854775808\n", False),  # text_format: out of range
    ("i: 0x10\n", False),  # text_format reads hex; TensorFlow never writes it
    ("i: 010\n", False),  # text_format reads C octal
    ("i: " + "1" * 5000 + "\n", False),  # int() refuses over 4300 digits
    ("f: 0.1\n", True),
    ("f: -0\n", True),
    ("f: inf\n", True),
    ("f: -inf\n", True),
    ("f: nan\n", True),
    ("f: 3.4028235e+38\n", True),
    ("f: 1e39\n", False),  # overflows float32
    ("f: 1e-50\n", True),  # rounds to zero as a C cast does
    ("f: 1.5f\n", False),  # text_format strips the suffix
    ("f: 01.5\n", False),  # text_format: invalid octal float
    ("f: 1_0\n", False),  # Python's float() reads it
    ("b: true\n", True),
    ("b: t\n", True),
    ("b: 1\n", True),
    ("b: yes\n", False),
    ("type: DT_FLOAT\n", True),
    ("type: 1\n", True),
    ("type: 1234\n", True),  # DataType is open: unknown numbers are kept
    ("type: DT_BOGUS\n", False),
    ('s: ""\n', True),
    ('s: "\\303\\251\\n\\t\\\\\\"\\\'\\x41"\n', True),
    ('s: "é"\n', True),
    ('s: "\\x4"\n', False),  # CUnescape pads a lone hex digit
    ('s: "\\477"\n', False),  # CUnescape fails above \377
    ('s: "\\u00e9"\n', False),  # CUnescape reads \u escapes
    ('s: "\\q"\n', False),  # kept as is, with a DeprecationWarning
    ("s: 'a'\n", False),
    ('s: "a" "b"\n', False),
    ('s: "a\n', False),
    ('placeholder: "T"\n', True),
    ('placeholder: "\\377"\n', False),  # a string field: not UTF-8
    ("i: 1\ni: 2\n", False),  # one oneof member twice: text_format refuses
    ('s: "a"\ni: 1\n', False),  # two oneof members
    ("list {\n}\n", True),
    ('list {\n  i: 1\n  i: -2\n  f: 0.5\n  type: DT_INT32\n  b: false\n  s: "x"\n}\n', True),
    ("list {\n  i: [1, 2]\n}\n", False),
    ("list: {\n}\n", False),
    ("list <\n>\n", False),
    ('shape {\n  dim {\n    size: -1\n    name: "batch"\n  }\n  unknown_rank: true\n}\n', True),
    ("shape {\n  dim {\n    size: 2\n  }\n}\nshape {\n}\n", False),  # a message field twice
    ("tensor {\n  dtype: DT_FLOAT\n  tensor_shape {\n  }\n  tensor_shape {\n  }\n}\n", False),
    ("tensor {\n  dtype: DT_FLOAT\n  dtype: DT_INT32\n}\n", False),
    ("tensor {\n  dtype: DT_HALF\n  half_val: 15360\n  version_number: 0\n}\n", True),
    ('tensor {\n  dtype: DT_STRING\n  string_val: "a"\n  string_val: "\\000"\n}\n', True),
    ("tensor {\n  dtype: DT_COMPLEX128\n  dcomplex_val: 1\n  dcomplex_val: -2.5e-310\n}\n", True),
    ("tensor {\n  dtype: DT_UINT64\n  uint64_val: 18446744073709551615\n  uint32_val: 4294967295\n}\n", True),
    ("tensor {\n  dtype: DT_UINT32\n  uint32_val: -1\n}\n", False),
    (
        'tensor {\n  dtype: DT_RESOURCE\n  resource_handle_val {\n    device: "/cpu:0"\n    hash_code: 7\n    dtypes_and_shapes {\n      dtype: DT_FLOAT\n      shape {\n        unknown_rank: true\n      }\n    }\n  }\n}\n',
        True,
    ),
    (
        'tensor {\n  dtype: DT_VARIANT\n  variant_val {\n    type_name: "t"\n    metadata: "\\001"\n    tensors {\n      dtype: DT_INT32\n      int_val: 3\n    }\n  }\n}\n',
        True,
    ),
    (
        'func {\n  name: "f"\n  attr {\n    key: "T"\n    value {\n      type: DT_FLOAT\n    }\n  }\n  attr {\n    key: "T"\n    value {\n      list {\n      }\n    }\n  }\n}\n',
        True,
    ),
    ('func {\n  attr {\n    value {\n      i: 1\n    }\n    key: "k"\n  }\n}\n', True),
    ('shape {\n  dim {\n    size: 1\n  }\n  dim {\n    size: 2\n    name: "x"\n  }\n}\n', True),
    (
        "tensor {\n  tensor_shape {\n    unknown_rank: true\n  }\n  tensor_shape {\n    unknown_rank: false\n  }\n}\n",
        False,
    ),
    ("tensor {\n  tensor_shape {\n    dim: 1\n  }\n}\n", False),
    ("tensor {\n  tensor_shape {\n    dim {\n      size: 1\n    }\n  }\n  float_val: 1\n}\n", True),
    ("tensor {\n  dtype: DT_FLOAT  # a comment\n}\n", False),
    ("tensor {\n  dtype: DT_FLOAT\n", False),
    ("}\n", False),
    ("i: 1", False),  # not whole lines
    ("  i:  1\n", False),
    ("i:1\n", False),
    ("unknown: 1\n", False),
    ("[tensorflow.ext]: 1\n", False),
    ("list {\n" * 70 + "}\n" * 70, False),  # deeper than MAX_DEPTH
]


@pytest.mark.parametrize("text, covered", EDGES, ids=[repr(text[:40]) for text, _ in EDGES])
def test_edge_cases(text, covered):
    assert (transcoded(text) is not None) == covered


# Characters that matter to escapes, in literals that may or may not be well formed.
_ESCAPE_ALPHABET = list("\\\\\\xuUN01347o8afFgntrvbq\"'é\u0100? ")


# One double-quoted literal, as text_format's tokenizer reads it: escapes of any character but a newline.
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')


@SETTINGS
@given(st.text(alphabet=_ESCAPE_ALPHABET + ["\n", '"'], max_size=14))
def test_only_one_whole_literal_is_read(scalar):
    """A scalar that is not one quoted literal (a stray or escaped closing quote, a newline) gives None."""
    for text in (scalar, f'"{scalar}"'):
        if _QUOTED.fullmatch(text) is None:
            assert _bytes_literal(text) is None, text


@SETTINGS
@given(st.text(alphabet=_ESCAPE_ALPHABET, max_size=12))
def test_literals_unescape_as_cunescape_does(body):
    data = _bytes_literal(f'"{body}"')
    if data is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # escape_decode is only used where no escape warns
        assert data == text_encoding.CUnescape(body)


_UTF8_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
_INT32 = st.integers(-(2**31), 2**31 - 1)
_INT64 = st.integers(-(2**63), 2**63 - 1)
_FLOAT32 = st.floats(width=32)
_DTYPE = st.one_of(st.sampled_from([value.number for value in protos.DATA_TYPE.values]), st.integers(-5, 300))


def _shape(message, draw) -> None:
    for size, name in draw(st.lists(st.tuples(_INT64, st.one_of(st.just(""), _UTF8_TEXT)), max_size=3)):
        dim = message.dim.add()
        dim.size = size
        dim.name = name
    message.unknown_rank = draw(st.booleans())


def _tensor(message, draw, depth: int) -> None:
    message.dtype = draw(_DTYPE)
    if draw(st.booleans()):
        _shape(message.tensor_shape, draw)
    message.version_number = draw(st.sampled_from([0, 0, 1, -3]))
    for field in draw(
        st.lists(
            st.sampled_from(
                [
                    "content",
                    "half",
                    "float",
                    "double",
                    "int",
                    "string",
                    "scomplex",
                    "int64",
                    "bool",
                    "dcomplex",
                    "uint32",
                    "uint64",
                    "float8",
                    "resource",
                    "variant",
                ]
            ),
            max_size=3,
            unique=True,
        )
    ):
        if field == "content":
            message.tensor_content = draw(st.binary(max_size=16))
        elif field == "float8":
            message.float8_val = draw(st.binary(max_size=4))
        elif field in ("half", "int"):
            getattr(message, f"{field}_val").extend(draw(st.lists(_INT32, max_size=3)))
        elif field in ("float", "scomplex"):
            getattr(message, f"{field}_val").extend(draw(st.lists(_FLOAT32, max_size=3)))
        elif field in ("double", "dcomplex"):
            getattr(message, f"{field}_val").extend(draw(st.lists(st.floats(), max_size=3)))
        elif field == "string":
            message.string_val.extend(draw(st.lists(st.binary(max_size=6), max_size=3)))
        elif field == "int64":
            message.int64_val.extend(draw(st.lists(_INT64, max_size=3)))
        elif field == "bool":
            message.bool_val.extend(draw(st.lists(st.booleans(), max_size=3)))
        elif field == "uint32":
            message.uint32_val.extend(draw(st.lists(st.integers(0, 2**32 - 1), max_size=3)))
        elif field == "uint64":
            message.uint64_val.extend(draw(st.lists(st.integers(0, 2**64 - 1), max_size=3)))
        elif field == "resource":
            handle = message.resource_handle_val.add()
            handle.device, handle.container, handle.name, handle.maybe_type_name = (draw(_UTF8_TEXT) for _ in range(4))
            handle.hash_code = draw(st.integers(0, 2**64 - 1))
            for _ in range(draw(st.integers(0, 2))):
                entry = handle.dtypes_and_shapes.add()
                entry.dtype = draw(_DTYPE)
                _shape(entry.shape, draw)
        elif field == "variant" and depth < 2:
            variant = message.variant_val.add()
            variant.type_name = draw(_UTF8_TEXT)
            variant.metadata = draw(st.binary(max_size=6))
            for _ in range(draw(st.integers(0, 2))):
                _tensor(variant.tensors.add(), draw, depth + 1)


def _attr_value(message, draw, depth: int = 0) -> None:
    kind = draw(st.sampled_from(["s", "i", "f", "b", "type", "shape", "tensor", "list", "func", "placeholder", "none"]))
    if kind == "s":
        message.s = draw(st.binary(max_size=12))
    elif kind == "i":
        message.i = draw(_INT64)
    elif kind == "f":
        message.f = draw(_FLOAT32)
    elif kind == "b":
        message.b = draw(st.booleans())
    elif kind == "type":
        message.type = draw(_DTYPE)
    elif kind == "shape":
        _shape(message.shape, draw)
    elif kind == "tensor":
        _tensor(message.tensor, draw, depth)
    elif kind == "list":
        items = message.list
        items.SetInParent()
        items.s.extend(draw(st.lists(st.binary(max_size=4), max_size=2)))
        items.i.extend(draw(st.lists(_INT64, max_size=2)))
        items.f.extend(draw(st.lists(_FLOAT32, max_size=2)))
        items.b.extend(draw(st.lists(st.booleans(), max_size=2)))
        items.type.extend(draw(st.lists(_DTYPE, max_size=2)))
        for _ in range(draw(st.integers(0, 2))):
            _shape(items.shape.add(), draw)
        for _ in range(draw(st.integers(0, 1))):
            _tensor(items.tensor.add(), draw, depth + 1)
        if depth < 2:
            for _ in range(draw(st.integers(0, 1))):
                _func(items.func.add(), draw, depth + 1)
    elif kind == "func" and depth < 3:
        _func(message.func, draw, depth + 1)
    elif kind == "placeholder":
        message.placeholder = draw(_UTF8_TEXT)


def _func(message, draw, depth: int) -> None:
    message.name = draw(_UTF8_TEXT)
    for key in draw(st.lists(_UTF8_TEXT, max_size=2)):
        _attr_value(message.attr[key], draw, depth)


@st.composite
def printed_values(draw) -> str:
    """A random AttrValue as protobuf's printer writes it (TensorFlow's layout), escaped or raw UTF-8."""
    message = protos.AttrValue()
    _attr_value(message, draw)
    return text_format.MessageToString(message, as_utf8=draw(st.booleans()))


@SETTINGS
@given(printed_values())
def test_printed_values_are_transcoded_exactly(text):
    assert transcoded(text) is not None, text


# Scalars text_format reads differently from (or the same as) their look: ranges, spellings, escapes.
_EDGE_SCALARS = [
    "1e39",
    "-1e39",
    "3.4028235e38",
    "3.4028236e38",
    "1e-46",
    "-0",
    "-0.0",
    "0",
    "00",
    "01",
    "0x10",
    "1.5f",
    "inf",
    "-inf",
    "infinity",
    "-Infinity",
    "nan",
    "-nan",
    "NaN",
    "nanf",
    "1_0",
    "+1",
    ".5",
    "5.",
    "1E+05",
    "true",
    "false",
    "t",
    "f",
    "True",
    "yes",
    "DT_FLOAT",
    "DT_BOGUS",
    "dt_float",
    "-1",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    '""',
    '"a" "b"',
    "'a'",
    '"\\x4"',
    '"\\x"',
    '"\\x41F"',
    '"\\477"',
    '"\\377"',
    '"\\q"',
    '"\\u00e9"',
    '"\\?"',
    '"é"',
    '"\\303"',
    '"\\\\"',
    '"\\""',
    '"a',
    '"\\"',
    "{",
    "[1, 2]",
    "[]",
    "",
]
_STRAY = ["{", "}", "<", ">", ":", "#", '"', "'", "\\", " ", "\t", "\n", "[", "]", ",", ";", "x", "0", "-"]


def mutated(text: str, rng: random.Random) -> str:
    """`text` with one or two small edits: those of test_text, scalars replaced, truncation."""
    for _ in range(rng.randint(1, 2)):
        lines = text.splitlines(keepends=True) or [""]
        kind = rng.randrange(3)
        if kind == 0:
            edit(lines, rng, _STRAY)
        elif kind == 1:
            index = rng.randrange(len(lines))
            if ": " in lines[index]:
                lines[index] = f"{lines[index].split(': ', 1)[0]}: {rng.choice(_EDGE_SCALARS)}\n"
        else:
            joined = "".join(lines)
            lines = [joined[: rng.randrange(len(joined) + 1)]]
        text = "".join(lines)
    return text


@SETTINGS
@given(printed_values(), st.randoms(use_true_random=False))
def test_mutated_values_keep_the_contract(text, rng):
    transcoded(mutated(text, rng))


def test_mutated_real_values_keep_the_contract():
    texts = list(file_values()) + list(generated_values())
    rng = random.Random(5)
    for _ in range(3000):
        transcoded(mutated(rng.choice(texts), rng))


def test_layouts_give_the_bytes_of_the_token_reading():
    """A value read through its layout (a template of its lines, read once) has the bytes of its
    reading token by token, or both are None: for the first value of a layout and for later ones."""
    texts = list(file_values()) + list(generated_values())
    rng = random.Random(7)
    texts += [mutated(rng.choice(texts), rng) for _ in range(3000)]
    _LAYOUTS.clear()
    for _ in range(2):  # the second time, every layout is known
        for text in texts:
            if text[-1:] in ("\n", ""):
                assert decoded(attr_value_bytes(text)) == decoded(_token_bytes(text, _attr_fields())), text[:2000]
    assert len(_LAYOUTS[protos.AttrValue.DESCRIPTOR.full_name]) > 10


def decoded(data: bytes | None) -> bytes | None:
    return None if data is None else protos.AttrValue.FromString(data).SerializeToString(deterministic=True)


def test_runs_of_numbers_are_packed():
    """Packed, as protobuf writes them: upb then sizes the array once (one at a time, it doubles it in its arena)."""
    text = "tensor {\n  dtype: DT_FLOAT\n  float_val: 1\n  float_val: 2\n  float_val: 3\n  int_val: 4\n}\n"
    data = attr_value_bytes(text)
    assert b"\x2a\x0c" + struct.pack("<3f", 1, 2, 3) in data  # float_val (5), length-delimited, 12 bytes
    assert protos.AttrValue.FromString(data).tensor.float_val == [1, 2, 3]
    assert decoded(data) == parsed(text)
    bad = "tensor {\n  dtype: DT_FLOAT\n  float_val: 1\n  float_val: 2x\n  float_val: 3\n  int_val: 4\n}\n"
    assert attr_value_bytes(bad) is None


def test_a_known_layout_with_a_scalar_that_does_not_encode_gives_none():
    assert attr_value_bytes("tensor {\n  dtype: DT_FLOAT\n  float_val: 1.5\n}\n") is not None
    assert attr_value_bytes("tensor {\n  dtype: DT_BOGUS\n  float_val: 1.5\n}\n") is None
    assert attr_value_bytes("tensor {\n  dtype: DT_FLOAT\n  float_val: 1.5f\n}\n") is None
    data = attr_value_bytes("tensor {\n  dtype: DT_HALF\n  float_val: 2\n}\n")
    assert protos.AttrValue.FromString(data) == protos.AttrValue(tensor={"dtype": "DT_HALF", "float_val": [2.0]})


def _attr_fields():
    from tflint.read.textvalues import _schema

    return _schema(protos.AttrValue.DESCRIPTOR)

"""Property tests: mutated real graphs keep the contract (findings or one clear error, never a crash).

Each example takes a graph of the shared corpus, mutates its bytes (bit
flips, truncation, insertion, deletion) or its text (line deletion and
duplication, stray tokens, truncation), writes it to a file and lints it
through `tflint.api` in-process. The budget is fixed (`max_examples`) so the
file runs in seconds; `tools/fuzz.py` runs the same contract for longer and
keeps what it finds in tests/data/crashers/, replayed by the last test here.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from conftest import CORPUS, DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tflint.api import lint_paths
from tflint.config.settings import config_from_mapping, default_config
from tflint.errors import UsageError
from tflint.finding import Finding

CRASHERS = DATA / "crashers"
BINARY = sorted(CORPUS.glob("*.pb")) + sorted(CORPUS.glob("*.meta"))
TEXT = sorted(CORPUS.glob("*.pbtxt"))
# Every rule on, so that rules off by default see mutated graphs too.
CONFIG = config_from_mapping(
    {"rules": {rule: "warning" for rule, conf in default_config().rules.items() if not conf.severity}}
)
SETTINGS = settings(
    max_examples=500,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
STRAY = [
    "{",
    "}",
    "<",
    ">",
    '"',
    "'",
    "\\",
    ":",
    "[",
    "]",
    "#",
    "\x00",
    "\xff",
    "node {",
    "attr {",
    "value {",
    "input: ",
    "1e999",
    "-",
    "\n",
]


def assert_contract(data: bytes, name: str) -> list[Finding]:
    """Lint `data` as a file called `name`: findings (one invalid-graph alone if unread) or a UsageError."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_bytes(data)
        try:
            report = lint_paths([path], CONFIG, baseline=False)
        except UsageError as error:  # exit 2: must be one clear line
            assert str(error) and "\n" not in str(error)
            return []
    findings = list(report.findings)
    for finding in findings:
        assert isinstance(finding, Finding) and finding.rule in CONFIG.modules and finding.message
    unread = [f for f in findings if f.rule == "invalid-graph" and f.message.startswith("cannot read")]
    if unread:
        assert findings == unread and len(unread) == 1  # nothing else is claimed about a file that was not read
    return findings


def _corpus(paths: list[Path]) -> st.SearchStrategy[Path]:
    assert paths, f"no graphs in {CORPUS}"
    return st.sampled_from(paths)


@st.composite
def mutated_bytes(draw: st.DrawFn) -> tuple[bytes, str]:
    source = draw(_corpus(BINARY))
    data = bytearray(source.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "byte"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[at:]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif data:
            data[at] = draw(st.sampled_from([0x00, 0x08, 0x0A, 0x12, 0x1A, 0x7F, 0x80, 0xFF]))
    return bytes(data), source.name


@st.composite
def mutated_text(draw: st.DrawFn) -> tuple[bytes, str]:
    source = draw(_corpus(TEXT))
    lines = source.read_text("utf-8").splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "duplicate", "stray", "truncate", "swap"]))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            break
        if kind == "delete":
            del lines[at : at + draw(st.integers(1, 3))]
        elif kind == "duplicate":
            lines.insert(at, lines[at])
        elif kind == "stray":
            column = draw(st.integers(0, len(lines[at])))
            lines[at] = lines[at][:column] + draw(st.sampled_from(STRAY)) + lines[at][column:]
        elif kind == "truncate":
            del lines[at:]
        else:
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
    return "".join(lines).encode("utf-8", "surrogatepass"), source.name


@SETTINGS
@given(mutated_bytes())
def test_mutated_binary_graphs_keep_the_contract(case):
    assert_contract(*case)


@SETTINGS
@given(mutated_text())
def test_mutated_text_graphs_keep_the_contract(case):
    assert_contract(*case)


@settings(SETTINGS, max_examples=300)
@given(st.binary(max_size=512), st.sampled_from(["g.pb", "g.pbtxt", "saved_model.pb", "g.meta"]))
def test_arbitrary_bytes_keep_the_contract(data, name):
    assert_contract(data, name)


@settings(SETTINGS, max_examples=300)
@given(
    st.lists(
        st.sampled_from(STRAY + ['name: "a"', 'op: "NoOp"', "node", "library", "function", "key", "i: 1", " ", "\n"]),
        max_size=200,
    ).map("".join)
)
def test_token_soup_keeps_the_contract(text):
    assert_contract(text.encode("utf-8"), "g.pbtxt")


def test_unmutated_corpus_is_read():
    for path in BINARY + TEXT:
        findings = assert_contract(path.read_bytes(), path.name)
        assert not any(f.rule == "invalid-graph" for f in findings), path.name


def test_saved_crashers_keep_the_contract():
    # tools/fuzz.py saves each input that broke the contract as <hash>.<original extension>; there may be none
    # (one test, not one per file: an empty parameter set would be reported as a skip).
    for crasher in sorted(p for p in CRASHERS.glob("*") if p.suffix in (".pb", ".pbtxt", ".meta")):
        assert_contract(crasher.read_bytes(), "input" + "".join(crasher.suffixes[-1:]))


# Sizes read from the input: length attrs, repeated fields. Whatever they claim, findings stay few
# (a claim beyond tflint's bound is a finding, not work) and every rule's findings per node are capped.
LENGTH_OPS = [
    ("Unpack", "num"),
    ("Split", "num_split"),
    ("SplitV", "num_split"),
    ("AddN", "N"),
    ("ConcatV2", "N"),
    ("Pack", "N"),
    ("DynamicPartition", "num_partitions"),
    ("Merge", "N"),
]


@settings(SETTINGS, max_examples=150)
@given(st.sampled_from(LENGTH_OPS), st.integers(-(2**63), 2**63 - 1), st.integers(0, 4))
def test_length_attrs_keep_the_contract(op_and_attr, count, inputs):
    op, attr = op_and_attr
    listed = "".join(' input: "x"' for _ in range(inputs))
    text = (
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
        f'node {{ name: "n" op: "{op}"{listed} attr {{ key: "T" value {{ type: DT_FLOAT }} }} '
        f'attr {{ key: "{attr}" value {{ i: {count} }} }} }}\n'
    )
    findings = assert_contract(text.encode(), "g.pbtxt")
    assert len(findings) <= 12


@settings(SETTINGS, max_examples=60)
@given(st.integers(0, 3000), st.sampled_from(["^x", "x", "x:0", "missing", "^missing", "x:9"]), st.integers(0, 2000))
def test_repeated_fields_keep_the_contract(times, item, list_items):
    from tflint import protos
    from tflint.engine.findings import MAX_PER_NODE

    graph = protos.GraphDef()
    placeholder = graph.node.add(name="x", op="Placeholder")
    placeholder.attr["dtype"].type = 1
    node = graph.node.add(name="n", op="IdentityN", input=[item] * times)
    node.attr["T"].list.type.extend([1] * list_items)
    node.attr["junk"].list.i.extend([2**40] * list_items)
    findings = assert_contract(graph.SerializeToString(), "g.pb")
    per_rule: dict[str, int] = {}
    for finding in findings:
        if finding.node == "n":
            per_rule[finding.rule] = per_rule.get(finding.rule, 0) + 1
    assert all(count <= MAX_PER_NODE + 1 for count in per_rule.values()), per_rule


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**80), 2**80),
    st.floats(allow_nan=True),
    st.sampled_from(
        [
            "",
            "off",
            "error",
            "warnung",
            "(a|aa)+$",
            "(?:(?:a{1000}){1000}){1000}",
            "[",
            "\x1b[2J\u202e",
            "x" * 5000,
            "a" * 1001,
        ]
    ),
    st.text(max_size=20),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["level", "ignore-nodes", "pattern", "forbid", "ops", "extra-ops", "x"]), inner, max_size=3
        )
    ),
    max_leaves=12,
)


@settings(SETTINGS, max_examples=200)
@given(
    st.dictionaries(
        st.sampled_from(
            ["rules", "fail-on", "inline-suppressions", "extends", "bogus", "op-defs", "baseline", "plugins"]
        ),
        _VALUES,
        max_size=4,
    ),
    st.dictionaries(st.sampled_from(sorted(CONFIG.modules) + ["no-such-rule"]), _VALUES, max_size=3),
)
def test_configs_keep_the_contract(top, rules):
    from tflint.errors import ConfigError

    raw = dict(top)
    if rules:
        raw["rules"] = rules
    try:
        config_from_mapping(raw)
    except (ConfigError, UsageError) as error:
        message = str(error)
        assert message and "\n" not in message and len(message) < 600, message[:1000]
        assert not any(ord(char) < 0x20 for char in message)

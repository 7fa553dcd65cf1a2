"""Fuzz tflint for longer than the test suite does: mutate real graphs until a time budget runs out.

    python tools/fuzz.py --minutes 10            # seeds: ../shared/corpus and tests/data/real
    python tools/fuzz.py --seconds 30 --seed 7 SEED_FILE...

Each input is a seed graph (binary or text) with a few random mutations:
bit flips, truncation, insertion and deletion of bytes; deletion,
duplication and swapping of lines and stray tokens in text; or, so that
the rules see graphs that still parse, odd inputs, ops, attr values,
shapes, tensors and names set on the parsed graph, hostile length attrs
(`Unpack` with `num: 2147483647`) and fields repeated thousands of times.
One input in twenty is a random configuration instead (values of every
shape under the known keys), which must give a Config or one short line. It is linted
in-process with every rule on. An input breaks the contract when linting
raises anything (a rule crash included), takes longer than `--hang-seconds`,
or returns findings beside the invalid-graph finding of an unread file.
Each such input is saved to tests/data/crashers/<sha1>.<ext>, where
tests/test_fuzz.py replays it as a regression test; the run ends with a
summary of how many inputs it tried and what they gave.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import random
import signal
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CRASHERS = REPO / "tests" / "data" / "crashers"
DEFAULT_SEEDS = (REPO.parent / "shared" / "corpus", REPO / "tests" / "data" / "real")
SEED_SUFFIXES = (".pb", ".pbtxt", ".meta")
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
    "func {",
    "list {",
    "2147483648",
    ":-1",
    "^",
]
INTERESTING_BYTES = [0x00, 0x01, 0x08, 0x0A, 0x12, 0x1A, 0x22, 0x7F, 0x80, 0xFF]


class Hang(Exception):
    """Linting one input took longer than the hang limit."""


def seed_files(paths: list[Path]) -> list[Path]:
    """Graph files in `paths` (files, or directories searched recursively)."""
    found = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SEED_SUFFIXES))
        elif path.is_file():
            found.append(path)
    return found


def is_text(data: bytes) -> bool:
    return not any(byte < 0x09 or 0x0D < byte < 0x20 for byte in data[:4096])


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 6))):
        at = rng.randrange(len(buffer)) if buffer else 0
        kind = rng.choice(("flip", "truncate", "insert", "delete", "byte", "splice", "varint"))
        if kind == "flip" and buffer:
            buffer[at] ^= 1 << rng.randrange(8)
        elif kind == "truncate":
            del buffer[at:]
        elif kind == "insert":
            buffer[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif kind == "delete":
            del buffer[at : at + rng.randint(1, 64)]
        elif kind == "byte" and buffer:
            buffer[at] = rng.choice(INTERESTING_BYTES)
        elif kind == "splice" and buffer:
            start = rng.randrange(len(buffer))
            buffer[at:at] = buffer[start : start + rng.randint(1, 256)]
        elif kind == "varint":  # a huge length or index where a small one was
            buffer[at:at] = bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
    return bytes(buffer)


def mutate_text(data: bytes, rng: random.Random) -> bytes:
    lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 6))):
        if not lines:
            break
        at = rng.randrange(len(lines))
        kind = rng.choice(("delete", "duplicate", "stray", "truncate", "swap", "indent"))
        if kind == "delete":
            del lines[at : at + rng.randint(1, 3)]
        elif kind == "duplicate":
            lines[at:at] = lines[at : at + rng.randint(1, 8)]
        elif kind == "stray":
            column = rng.randint(0, len(lines[at]))
            lines[at] = lines[at][:column] + rng.choice(STRAY) + lines[at][column:]
        elif kind == "truncate":
            del lines[at:]
        elif kind == "swap":
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        else:
            lines[at] = " " * rng.randint(0, 6) + lines[at].lstrip(" ")
    return "".join(lines).encode("utf-8", "surrogatepass")


# Ints that drive allocations when believed: lengths, counts, dims.
HOSTILE_INTS = [-1, 0, 65_536, 65_537, 200_000_000, 2**31 - 1, 2**31, 2**63 - 1, -(2**63)]
# Ops whose output or input count is an int attr (number_attr).
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
ODD_INPUTS = [
    "",
    "^",
    ":",
    "x:",
    ":0",
    "missing",
    "missing:0",
    "^missing",
    "a:2147483648",
    "a:-1",
    "a:99999",
    "a:0:0",
    "^^a",
    "a^",
    "/",
    "a//b",
]


def _graphs_of(message, kind: str) -> list:
    if kind == "GraphDef":
        return [message]
    if kind == "MetaGraphDef":
        return [message.graph_def]
    return [meta.graph_def for meta in message.meta_graphs]


_PARSED: dict[bytes, tuple[str, bytes] | None] = {}


def _parsed(data: bytes, name: str) -> tuple[str, bytes] | None:
    """(message type, binary bytes) of a seed that parses as a binary graph, cached."""
    if data not in _PARSED:
        from tflint.read.load import load_bytes

        artifact = load_bytes(data, name)
        ok = artifact.failure is None and artifact.form == "binary" and artifact.message is not None
        _PARSED[data] = (artifact.message_type, data) if ok else None
    return _PARSED[data]


def mutate_graph(data: bytes, name: str, rng: random.Random) -> bytes | None:
    """Structure-aware mutation: change nodes, inputs and attrs of a parsed binary graph; None if it does not parse."""
    from tflint import protos

    parsed = _parsed(data, name)
    if parsed is None:
        return None
    kind, raw = parsed
    message = getattr(protos, kind)()
    message.ParseFromString(raw)
    scopes = []
    for graph in _graphs_of(message, kind):
        scopes.append(graph.node)
        scopes.extend(function.node_def for function in graph.library.function)
    scopes = [nodes for nodes in scopes if len(nodes)]
    if not scopes:
        return None
    for _ in range(rng.randint(1, 3)):
        nodes = rng.choice(scopes)
        node = rng.choice(nodes)
        other = rng.choice(nodes)
        kind = rng.choice(
            (
                "input",
                "add-input",
                "op",
                "attr-type",
                "attr-int",
                "attr-del",
                "attr-shape",
                "attr-list",
                "length",
                "repeat",
                "dup",
                "drop",
                "self",
                "tensor",
                "name",
            )
        )
        if kind == "input" and node.input:
            node.input[rng.randrange(len(node.input))] = rng.choice(
                ODD_INPUTS + [other.name, "^" + other.name, f"{other.name}:{rng.randint(0, 40)}"]
            )
        elif kind == "add-input":
            node.input.append(rng.choice(ODD_INPUTS + [other.name, "^" + other.name]))
        elif kind == "op":
            node.op = rng.choice(
                [
                    other.op,
                    "",
                    "NoSuchOp",
                    "Merge",
                    "Switch",
                    "NextIteration",
                    "PartitionedCall",
                    "While",
                    "If",
                    "Const",
                ]
            )
        elif kind == "attr-del" and node.attr:
            del node.attr[rng.choice(list(node.attr))]
        elif kind in ("attr-type", "attr-int", "attr-shape", "attr-list", "tensor"):
            key = rng.choice(list(node.attr) or ["T"])
            value = node.attr[key]
            if kind == "attr-type":
                value.type = rng.choice([0, 1, 20, 21, 101, 150, 1000, 2**31 - 1])
            elif kind == "attr-int":
                value.i = rng.choice(HOSTILE_INTS)
            elif kind == "attr-shape":
                value.shape.Clear()
                for _ in range(rng.randint(0, 4)):
                    value.shape.dim.add(size=rng.choice([-5, -1, 0, 1, 3, 2**40]))
                value.shape.unknown_rank = rng.random() < 0.2
            elif kind == "attr-list":
                value.list.type.extend([rng.choice([0, 1, 150])] * rng.randint(0, 3))
                value.list.i.extend([rng.choice([-1, 0, 2**40])] * rng.randint(0, 3))
            else:
                value.tensor.dtype = rng.choice([0, 1, 3, 7, 150])
                value.tensor.tensor_shape.Clear()
                for _ in range(rng.randint(0, 3)):
                    value.tensor.tensor_shape.dim.add(size=rng.choice([-1, 0, 2, 2**40]))
                value.tensor.tensor_content = bytes(rng.randrange(256) for _ in range(rng.choice([0, 3, 8, 17])))
        elif kind == "length":
            # What a length attr claims, on an op that has one: a few bytes asking for gigabytes.
            node.op, key = rng.choice(LENGTH_OPS)
            node.attr[key].i = rng.choice(HOSTILE_INTS)
        elif kind == "repeat":
            # One repeated field many times: findings must stay capped, memory must follow the bytes.
            times = rng.choice([100, 1000, 20_000])
            if rng.random() < 0.5:
                node.input.extend([rng.choice(node.input or ["^" + other.name])] * times)
            else:
                value = node.attr[rng.choice(list(node.attr) or ["T"])]
                value.list.i.extend([rng.choice(HOSTILE_INTS)] * times)
        elif kind == "dup":
            nodes.add().CopyFrom(node)
        elif kind == "drop" and len(nodes) > 1:
            del nodes[rng.randrange(len(nodes))]
        elif kind == "self":
            node.input.append(rng.choice([node.name, "^" + node.name]))
        elif kind == "name":
            node.name = rng.choice([other.name, "", "a" * 300, "\x00", "x:0", "^y", "é"])
    return message.SerializeToString()


def build_checker():
    """A function linting (bytes, name) in-process; returns an outcome label or raises on a broken contract."""
    from tflint.api import registry_for
    from tflint.config.settings import config_from_mapping, default_config
    from tflint.engine.run import lint_artifact
    from tflint.read.load import load_bytes

    config = config_from_mapping(
        {"rules": {rule: "warning" for rule, conf in default_config().rules.items() if not conf.severity}}
    )
    registry = registry_for(config)

    def check(data: bytes, name: str) -> str:
        findings = lint_artifact(load_bytes(data, name), config, registry)
        unread = [f for f in findings if f.rule == "invalid-graph" and f.message.startswith("cannot read")]
        if unread and findings != unread:
            raise AssertionError(f"{len(findings) - len(unread)} findings beside invalid-graph on an unread file")
        if unread:
            return "invalid-graph"
        return "findings" if findings else "clean"

    return check


def random_config(rng: random.Random, depth: int = 0) -> object:
    """A random configuration value: the known keys with values of any shape, and junk keys."""
    from tflint.rules import all_rules

    def value(level: int) -> object:
        roll = rng.random()
        if level > 3 or roll < 0.4:
            return rng.choice(
                [
                    None,
                    True,
                    False,
                    0,
                    -1,
                    2**70,
                    1.5,
                    "",
                    "off",
                    "error",
                    "warnung",
                    "x" * 5000,
                    "(a|aa)+$",
                    "(?:(?:a{1000}){1000}){1000}",
                    "[",
                    "\x1b[2J\u202e",
                    "a" * 1001,
                ]
            )
        if roll < 0.7:
            return [value(level + 1) for _ in range(rng.randint(0, 4))]
        return {
            rng.choice(["level", "ignore-nodes", "pattern", "forbid", "ops", "x"]): value(level + 1)
            for _ in range(rng.randint(0, 3))
        }

    rules = sorted(all_rules())
    config: dict[object, object] = {}
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(
            ["rules", "fail-on", "op-defs", "baseline", "inline-suppressions", "extends", "plugins", "bogus"]
        )
        if key == "rules":
            config[key] = {rng.choice(rules + ["no-such-rule"]): value(1) for _ in range(rng.randint(0, 3))}
        else:
            config[key] = value(1)
    return config


def build_config_checker():
    """A function checking one random config: a Config, or a ConfigError of one short line."""
    from tflint.config.settings import config_from_mapping
    from tflint.errors import ConfigError, UsageError

    def check(config: object) -> str:
        try:
            config_from_mapping(config)  # type: ignore[arg-type]
        except (ConfigError, UsageError) as error:
            message = str(error)
            if "\n" in message or len(message) > 600:
                raise AssertionError(
                    f"config error of {len(message)} characters over {message.count(chr(10)) + 1} lines"
                )
            return "config-error"
        return "config"

    return check


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise Hang()


def save_crasher(data: bytes, name: str) -> Path:
    CRASHERS.mkdir(parents=True, exist_ok=True)
    suffix = Path(name).suffix or ".pb"
    path = CRASHERS / f"{hashlib.sha1(data).hexdigest()[:16]}{suffix}"
    path.write_bytes(data)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "seeds",
        nargs="*",
        type=Path,
        help="seed graph files or directories (default: the shared corpus and tests/data/real)",
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, help="time budget in minutes")
    budget.add_argument("--seconds", type=float, help="time budget in seconds (default 60)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock; printed)")
    parser.add_argument(
        "--hang-seconds", type=int, default=20, help="an input linted for longer than this is a crasher (default 20)"
    )
    parser.add_argument(
        "--max-size", type=int, default=1 << 20, help="skip seeds larger than this many bytes (default 1 MiB)"
    )
    args = parser.parse_args(argv)

    budget_seconds = (
        args.minutes * 60 if args.minutes is not None else (args.seconds if args.seconds is not None else 60.0)
    )
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    seeds = [
        (path.read_bytes(), path.name) for path in seed_files(args.seeds or [p for p in DEFAULT_SEEDS if p.exists()])
    ]
    seeds = [(data, name) for data, name in seeds if 0 < len(data) <= args.max_size]
    if not seeds:
        print("fuzz: no seed graphs found", file=sys.stderr)
        return 2
    check = build_checker()
    check_config = build_config_checker()
    signal.signal(signal.SIGALRM, _alarm)

    outcomes: collections.Counter[str] = collections.Counter()
    crashers: dict[str, tuple[Path, str]] = {}
    started = time.monotonic()
    tried = 0
    print(f"fuzz: {len(seeds)} seeds, budget {budget_seconds:.0f} s, --seed {seed}", flush=True)
    while time.monotonic() - started < budget_seconds:
        data, name = rng.choice(seeds)
        roll = rng.random()
        config = random_config(rng) if roll >= 0.95 else None
        mutant = mutate_graph(data, name, rng) if roll < 0.5 else None
        if mutant is None:
            mutant = mutate_text(data, rng) if is_text(data) and roll < 0.8 else mutate_bytes(data, rng)
        if config is not None:
            import json

            mutant, name = json.dumps(config, default=str).encode(), "config.json"  # kept as a JSON crasher
        tried += 1
        problem = None
        signal.alarm(args.hang_seconds)
        try:
            outcomes[check_config(config) if config is not None else check(mutant, name)] += 1
        except Hang:
            problem = f"hang: more than {args.hang_seconds} s"
        except Exception as error:  # noqa: BLE001 - every exception breaks the contract
            frame = traceback.extract_tb(error.__traceback__)[-1]
            problem = f"{type(error).__name__} at {Path(frame.filename).name}:{frame.lineno}: {str(error)[:200]}"
        finally:
            signal.alarm(0)
        if problem is not None:
            outcomes["crash"] += 1
            key = problem.split(": ", 1)[0]
            if key not in crashers:  # one example per distinct crash site
                crashers[key] = (save_crasher(mutant, name), problem)
                print(f"fuzz: CRASH {problem}\n      saved {crashers[key][0].relative_to(REPO)}", flush=True)
        if tried % 5000 == 0:
            print(f"fuzz: {tried} inputs, {dict(outcomes)}", flush=True)

    elapsed = time.monotonic() - started
    print(f"fuzz: tried {tried} inputs in {elapsed:.0f} s ({tried / elapsed:.0f}/s): {dict(sorted(outcomes.items()))}")
    print(
        f"fuzz: {len(crashers)} distinct crash sites"
        + "".join(f"\n  {problem}  -> {path.relative_to(REPO)}" for path, problem in crashers.values())
    )
    return 1 if crashers else 0


if __name__ == "__main__":
    raise SystemExit(main())

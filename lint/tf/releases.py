"""The TensorFlow releases a graph can be judged against: their op registries, versions and schemas.

tools/gen_registry.py dumps each release from its real wheel and merges the
dumps into two files of tf/data/, read only when a run names a target:

- `releases.binpb.z`: a zlib-compressed OpList holding every distinct OpDef
  (documentation stripped) that any bundled release registers: an op that
  never changed appears once, one that gained an attr, a type or a default
  appears once per variant;
- `releases.json`: the release names (bit i of a mask = `releases[i]`), each
  release's GraphDef version range, one mask per OpDef of the OpList (the
  releases registering exactly that OpDef), and the protobuf schema names
  (message fields, enum values) that some release lacks, each with the mask
  of the releases that know it. A name absent from the schema table is known
  to every release.

So a release's registry is the OpDefs whose mask has its bit, and a
difference between two releases (a new op, attr, type or default) is two
variants whose masks split where the change happened.
"""

from __future__ import annotations

import functools
import json
import os
import zlib
from typing import Any

from tflint.errors import UsageError
from tflint.records import record
from tflint.tf.registry import DATA_DIR


@record(frozen=True, hidden=("ops",))
class Release:
    """One TensorFlow release as its graph importer sees graphs."""

    name: str  # "2.11"
    tensorflow_version: str  # the wheel it was taken from, "2.11.1"
    bit: int
    graph_def_version: int  # TF_GRAPH_DEF_VERSION: what it writes and the newest min_consumer it accepts
    min_consumer: int
    min_producer: int  # the oldest producer it imports
    ops: dict[str, Any]

    def __init__(
        self,
        name: str,
        tensorflow_version: str,
        bit: int,
        graph_def_version: int,
        min_consumer: int,
        min_producer: int,
        ops: dict[str, Any],
    ) -> None:
        vars(self).update(
            name=name,
            tensorflow_version=tensorflow_version,
            bit=bit,
            graph_def_version=graph_def_version,
            min_consumer=min_consumer,
            min_producer=min_producer,
            ops=ops,
        )

    @property
    def label(self) -> str:
        return f"TF {self.name}"

    def key(self) -> tuple[int, ...]:
        return release_key(self.name)


def release_key(name: str) -> tuple[int, ...]:
    """`"2.11"` -> (2, 11), for ordering releases."""
    return tuple(int(part) for part in name.split("."))


@functools.cache
def _table() -> dict[str, Any]:
    with open(os.path.join(DATA_DIR, "releases.json"), encoding="utf-8") as file:
        table: dict[str, Any] = json.load(file)
        return table


@functools.cache
def _op_variants() -> tuple[list[Any], list[int]]:
    """Every distinct OpDef of the bundled releases and, aligned, the mask of releases having it."""
    from tflint import protos

    with open(os.path.join(DATA_DIR, "releases.binpb.z"), "rb") as file:
        op_list = protos.OpList.FromString(zlib.decompress(file.read()))
    return list(op_list.op), list(_table()["op_masks"])


def known_releases() -> tuple[str, ...]:
    """The bundled releases, oldest first ("1.15", "2.0", ...)."""
    return tuple(_table()["releases"])


def resolve(spec: str) -> str:
    """The bundled release a version spelling means: `2.11`, `2.11.1`, `v2.11` and `2.11.0rc1` all mean 2.11.

    Raises UsageError, listing the known releases, for anything else.
    """
    text = str(spec).strip()
    if text[:1] in ("v", "V"):
        text = text[1:]
    parts = text.split(".")
    known = known_releases()
    if len(parts) >= 2 and _number(parts[0]):
        minor = "".join(ch for ch in parts[1] if _number(ch)) if len(parts) == 2 else parts[1]
        name = f"{int(parts[0])}.{int(minor)}" if _number(minor) else ""
        if name in known:
            return name
    raise UsageError(f"unknown TensorFlow version {str(spec)!r} for target-tf; known: {', '.join(known)}")


def _number(text: str) -> bool:
    """ASCII digits only: `²` is a digit to str.isdigit() but not to int()."""
    return text.isascii() and text.isdigit()


@functools.cache
def release(name: str) -> Release:
    """The bundled release `name` (as returned by resolve), its registry built on first use."""
    table = _table()
    bit = table["releases"].index(name)
    op_defs, masks = _op_variants()
    flag = 1 << bit
    ops = {op.name: op for op, mask in zip(op_defs, masks) if mask & flag}
    producer, min_consumer, min_producer = table["graph_def_versions"][bit]
    return Release(
        name=name,
        tensorflow_version=table["tensorflow_versions"][bit],
        bit=bit,
        graph_def_version=producer,
        min_consumer=min_consumer,
        min_producer=min_producer,
        ops=ops,
    )


def releases(specs: tuple[str, ...] | list[str]) -> tuple[Release, ...]:
    """The releases `specs` name, resolved, deduplicated and oldest first."""
    names = {resolve(spec) for spec in specs}
    return tuple(release(name) for name in sorted(names, key=release_key))


def first_release_with_op(op: str) -> str | None:
    """The oldest bundled release registering `op`, or None if none does."""
    union = _op_mask(op)
    return first_release_in(union) if union else None


def last_release_with_op(op: str) -> str | None:
    """The newest bundled release registering `op`, or None if none does."""
    union = _op_mask(op)
    names: list[str] = _table()["releases"]
    return names[union.bit_length() - 1] if union else None


def _op_mask(op: str) -> int:
    op_defs, masks = _op_variants()
    union = 0
    for op_def, mask in zip(op_defs, masks):
        if op_def.name == op:
            union |= mask
    return union


def first_release_with_attr(op: str, attr: str) -> str | None:
    """The oldest bundled release whose OpDef of `op` has attr `attr`, or None."""
    op_defs, masks = _op_variants()
    union = 0
    for op_def, mask in zip(op_defs, masks):
        if op_def.name == op and any(item.name == attr for item in op_def.attr):
            union |= mask
    return first_release_in(union) if union else None


def schema_mask(owner: str, name: str, kind: str = "messages") -> int | None:
    """The mask of releases whose protobuf schema has field `name` of message `owner` (an enum value
    of enum `owner` with kind="enums"); None when every bundled release has it."""
    entry = _table()["schema"][kind].get(owner)
    if entry is None:
        return None
    found: int | None = entry.get(name)
    return found


def first_release_in(mask: int) -> str:
    """The oldest release of a mask."""
    names: list[str] = _table()["releases"]
    return names[(mask & -mask).bit_length() - 1]


def schema_gaps(targets: tuple[Release, ...] | list[Release]) -> dict[tuple[str, str, str], int]:
    """(kind, owner, name) -> mask of the releases knowing it, for every schema name some target lacks."""
    flags = [1 << target.bit for target in targets]
    gaps = {}
    for kind, owners in _table()["schema"].items():
        for owner, names in owners.items():
            for name, mask in names.items():
                if any(not mask & flag for flag in flags):
                    gaps[(kind, owner, name)] = mask
    return gaps

"""What the clients of a served model rely on, and how two versions of it differ (`tflint compat`).

A model server (TensorFlow Serving) picks a meta graph by its tag set and
answers requests by signature key: a request names input and output keys,
sends tensors of the declared dtypes and shapes, and the server feeds them to
the tensor names of the SignatureDef (`Session::Run`). Clients are written
against that interface, not against the graph: node names, function names
and the order of nodes, which TensorFlow changes each time it saves a model,
are not part of it. This module reduces a MetaGraphDef to that interface
(`meta_interface`) and compares shapes as a signature promises them (TF2's
signature functions accept a tensor that has the declared rank and every
known dimension), for the `compat` rules. No I/O: the caller reads the files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tflint import finding
from tflint.finding import Place
from tflint.records import record
from tflint.tf.node import parse_input
from tflint.tf.serving import INIT_OP_SIGNATURE_KEYS, asset_file_defs

PREDICT = "tensorflow/serving/predict"
CLASSIFY = "tensorflow/serving/classify"
REGRESS = "tensorflow/serving/regress"
# What TensorFlow Serving's Classify and Regress APIs look up in a signature (classifier.cc, regressor.cc):
# an input "inputs", and outputs "classes" and/or "scores" (classify) or "outputs" (regress).
API_INPUTS = {CLASSIFY: ("inputs",), REGRESS: ("inputs",)}
API_OUTPUTS = {CLASSIFY: ("classes", "scores"), REGRESS: ("outputs",)}
# The op that makes an input optional: fed when the request sends it, its default otherwise.
OPTIONAL_INPUT_OPS = frozenset({"PlaceholderWithDefault"})
# Longest name or value quoted whole in a message; longer ones are cut (they come from the file).
_SHOWN_CHARS = 120


@record(frozen=True)
class TensorSpec:
    """One input or output of a signature, as a client sees it.

    `encoding` is the TensorInfo's oneof ("name", "coo_sparse" or
    "composite_tensor"), `shape` the declared dimensions (-1 unknown) or
    None for an unknown rank, `name` the tensor name (not part of the API),
    `optional` whether the input is fed by a PlaceholderWithDefault, `node`
    the node the name resolves to when it was read (where findings point).
    """

    key: str
    encoding: str
    dtype: int
    shape: tuple[int, ...] | None
    name: str
    optional: bool
    node: Any

    def __init__(
        self,
        key: str,
        encoding: str,
        dtype: int,
        shape: tuple[int, ...] | None,
        name: str,
        optional: bool = False,
        node: Any = None,
    ) -> None:
        vars(self).update(key=key, encoding=encoding, dtype=dtype, shape=shape, name=name, optional=optional, node=node)


@record(frozen=True)
class Signature:
    """A SignatureDef reduced to what clients use: its method name and its input and output specs."""

    key: str
    method_name: str
    inputs: Mapping[str, TensorSpec]
    outputs: Mapping[str, TensorSpec]

    def __init__(
        self,
        key: str,
        method_name: str,
        inputs: Mapping[str, TensorSpec],
        outputs: Mapping[str, TensorSpec],
    ) -> None:
        vars(self).update(key=key, method_name=method_name, inputs=inputs, outputs=outputs)


@record(frozen=True)
class MetaGraphInterface:
    """One meta graph: its tag set, its signatures, its asset file names, and what TensorFlow it needs.

    `ordinal` is its index in its file (positions key on it), `label` names it
    in findings. `producer` / `min_consumer` come from the GraphDef's
    `versions`; `op_defs` is its `stripped_op_list` by op name (None when the
    file has none), `ops` the ops it uses (None when neither that list nor
    the nodes were read).
    """

    tags: frozenset[str]
    ordinal: int
    label: str | None
    signatures: Mapping[str, Signature]
    assets: tuple[str, ...]
    producer: int | None
    min_consumer: int | None
    tensorflow_version: str
    op_defs: Mapping[str, Any] | None
    ops: frozenset[str] | None

    def __init__(
        self,
        tags: frozenset[str],
        ordinal: int,
        label: str | None,
        signatures: Mapping[str, Signature],
        assets: tuple[str, ...],
        producer: int | None,
        min_consumer: int | None,
        tensorflow_version: str,
        op_defs: Mapping[str, Any] | None,
        ops: frozenset[str] | None,
    ) -> None:
        vars(self).update(
            tags=tags,
            ordinal=ordinal,
            label=label,
            signatures=signatures,
            assets=assets,
            producer=producer,
            min_consumer=min_consumer,
            tensorflow_version=tensorflow_version,
            op_defs=op_defs,
            ops=ops,
        )


@record(frozen=True)
class Interface:
    """A model version's interface: its meta graphs by tag set, and how messages name the version."""

    name: str
    metas: Mapping[frozenset[str], MetaGraphInterface]

    def __init__(self, name: str, metas: Mapping[frozenset[str], MetaGraphInterface]) -> None:
        vars(self).update(name=name, metas=metas)


@record(frozen=True)
class VersionPair:
    """The two versions a `compat` rule compares: `old`, which clients were written against, and `new`.

    `registry` is the run's op registry (TensorFlow's ops as bundled, plus the configured op-defs).
    """

    old: Interface
    new: Interface
    registry: Any

    def __init__(self, old: Interface, new: Interface, registry: Any = None) -> None:
        vars(self).update(old=old, new=new, registry=registry)

    def common_metas(self) -> Iterator[tuple[MetaGraphInterface, MetaGraphInterface]]:
        """(old, new) for each tag set in both versions, in a stable order."""
        for tags in sorted(self.old.metas, key=sorted):
            if tags in self.new.metas:
                yield self.old.metas[tags], self.new.metas[tags]

    def common_signatures(
        self,
    ) -> Iterator[tuple[MetaGraphInterface, Signature, Signature]]:
        """(new meta graph, old signature, new signature) for each signature key in both, per common tag set."""
        for old_meta, new_meta in self.common_metas():
            for key in sorted(old_meta.signatures):
                if key in new_meta.signatures:
                    yield new_meta, old_meta.signatures[key], new_meta.signatures[key]


@record(frozen=True)
class Where:
    """The element of the new version an issue is about: a meta graph (None: none, the tag set is gone) and
    a Place in it (`tflint.finding`, most precise first); the engine points the finding at the first key
    written in a text source, else at the meta graph's tags, else at the meta graph.
    """

    meta: MetaGraphInterface | None
    at: Place
    label: str | None  # the meta graph's label when `meta` is None (a removed tag set: the old one's)

    def __init__(
        self,
        meta: MetaGraphInterface | None,
        at: Place = (),
        label: str | None = None,
    ) -> None:
        vars(self).update(meta=meta, at=at, label=label)


def at_signature(meta: MetaGraphInterface, signature: str) -> Where:
    """A signature of the new version (where a missing input or output is reported)."""
    return Where(meta, finding.at_signature(signature))


def at_tensor(meta: MetaGraphInterface, signature: str, direction: str, key: str, part: str = "tensor") -> Where:
    """An input or output of the new version; `part` "dtype" or "shape" points at that field when written."""
    return Where(meta, finding.at_signature_entry(signature, direction, key, part) + finding.at_signature(signature))


# -- building an interface ----------------------------------------------------------------------


def meta_interface(
    meta: Any,
    ordinal: int,
    label: str | None,
    node_of: Callable[[str], Any] = lambda name: None,
    ops: frozenset[str] | None = None,
) -> MetaGraphInterface:
    """The interface of a MetaGraphDef message.

    `node_of(name)` gives the node of that name (with `.op`), or None when it
    was not read; `ops` the ops the graph uses when known apart from its
    `stripped_op_list`.
    """
    signatures = {}
    for key in sorted(meta.signature_def):
        if key in INIT_OP_SIGNATURE_KEYS:
            continue  # run by the loader, never by a client
        definition = meta.signature_def[key]
        signatures[key] = Signature(
            key,
            definition.method_name,
            {name: _spec(name, definition.inputs[name], node_of) for name in sorted(definition.inputs)},
            {name: _spec(name, definition.outputs[name], node_of) for name in sorted(definition.outputs)},
        )
    info = meta.meta_info_def
    op_defs = None
    if info.HasField("stripped_op_list") and len(info.stripped_op_list.op):
        op_defs = {op.name: op for op in info.stripped_op_list.op}
        ops = frozenset(op_defs) | (ops or frozenset())
    versions = meta.graph_def.versions if meta.graph_def.HasField("versions") else None
    return MetaGraphInterface(
        tags=frozenset(info.tags),
        ordinal=ordinal,
        label=label,
        signatures=signatures,
        assets=tuple(sorted({asset.filename for asset in asset_file_defs(meta)})),
        producer=versions.producer if versions is not None else None,
        min_consumer=versions.min_consumer if versions is not None else None,
        tensorflow_version=info.tensorflow_version,
        op_defs=op_defs,
        ops=ops,
    )


def _spec(key: str, info: Any, node_of: Callable[[str], Any]) -> TensorSpec:
    encoding = info.WhichOneof("encoding") or "name"
    shape = None
    if info.HasField("tensor_shape") and not info.tensor_shape.unknown_rank:
        shape = tuple(dim.size if dim.size >= 0 else -1 for dim in info.tensor_shape.dim)
    node = node_of(parse_input(info.name).node) if encoding == "name" and info.name else None
    optional = node is not None and node.op in OPTIONAL_INPUT_OPS
    return TensorSpec(key, encoding, info.dtype, shape, info.name, optional, node)


def signature_input_nodes(meta: Any) -> set[str]:
    """Names of the nodes the dense tensors of a meta graph's signatures resolve to (what `node_of` is asked)."""
    names = set()
    for key, definition in meta.signature_def.items():
        if key in INIT_OP_SIGNATURE_KEYS:
            continue
        for entries in (definition.inputs, definition.outputs):
            for info in entries.values():
                if info.WhichOneof("encoding") in (None, "name") and info.name:
                    names.add(parse_input(info.name).node)
    return names


def renamed(old: Mapping[str, TensorSpec], new: Mapping[str, TensorSpec]) -> dict[str, str]:
    """{old key: new key} when exactly one key went and one came with the same encoding, dtype and shape.

    Such a pair reads as a rename: one finding says so, instead of a removal and an addition.
    """
    gone = [key for key in old if key not in new]
    came = [key for key in new if key not in old]
    if len(gone) != 1 or len(came) != 1:
        return {}
    before, after = old[gone[0]], new[came[0]]
    if (before.encoding, before.dtype, before.shape) != (after.encoding, after.dtype, after.shape):
        return {}
    return {gone[0]: came[0]}


def api_keys(signature: Signature, direction: str) -> tuple[str, ...]:
    """The keys TensorFlow Serving's Classify or Regress API looks up in a signature of that method (else none)."""
    table = API_INPUTS if direction == "inputs" else API_OUTPUTS
    return table.get(signature.method_name, ())


# -- shapes as TensorFlow Serving checks them ----------------------------------------------------


@record(frozen=True)
class Removal:
    """A signature key of the old version that the new one lacks (`renamed_to`: its one-for-one twin in
    the new version, whose tensor is `renamed_node`)."""

    meta: MetaGraphInterface
    signature: str
    key: str
    renamed_to: str | None
    renamed_node: Any

    def __init__(
        self,
        meta: MetaGraphInterface,
        signature: str,
        key: str,
        renamed_to: str | None,
        renamed_node: Any,
    ) -> None:
        vars(self).update(meta=meta, signature=signature, key=key, renamed_to=renamed_to, renamed_node=renamed_node)


def removed_keys(pair: VersionPair, direction: str) -> Iterator[Removal]:
    """The `direction` ("inputs" or "outputs") keys of each common signature that NEW lacks, in key order.

    A key another key now covers (a classify/regress signature's API keys under the same method)
    is not removed; one whose only replacement has the same dtype and shape is a rename.
    """
    for meta, old, new in pair.common_signatures():
        old_keys, new_keys = getattr(old, direction), getattr(new, direction)
        renames = renamed(old_keys, new_keys)
        covered = api_keys(new, direction) if new.method_name == old.method_name else ()
        for key in sorted(set(old_keys) - set(new_keys)):
            if key not in covered:
                target = renames.get(key)
                node = new_keys[target].node if target is not None else None
                yield Removal(meta, old.key, key, target, node)


@record(frozen=True)
class ShapeChange:
    """How a declared shape changed: `kind` is "breaking", "risky" or "relaxed", `reasons` say why."""

    kind: str
    reasons: tuple[str, ...]

    def __init__(self, kind: str, reasons: tuple[str, ...]) -> None:
        vars(self).update(kind=kind, reasons=reasons)


# A message about a shape stays short whatever its rank (a signature may declare 300,000 dimensions).
MAX_SHOWN_DIMS = 8  # dimensions written out in a shape
MAX_REASONS = 4  # dimensions described in a change


def shape_text(shape: tuple[int, ...] | None) -> str:
    """`[-1,224,224,3]`, or `unknown rank`; a shape of many dimensions shows its first few and its rank."""
    if shape is None:
        return "unknown rank"
    if len(shape) > MAX_SHOWN_DIMS:
        shown = ",".join(str(dim) for dim in shape[:MAX_SHOWN_DIMS])
        return f"[{shown},... ({len(shape):,} dimensions)]"
    return "[" + ",".join(str(dim) for dim in shape) + "]"


def _bounded(kind: str, reasons: list[str]) -> ShapeChange:
    """A change naming at most MAX_REASONS dimensions, and how many more changed."""
    if len(reasons) > MAX_REASONS:
        more = len(reasons) - MAX_REASONS
        reasons = [*reasons[:MAX_REASONS], f"and {more:,} more dimension{'s' if more != 1 else ''}"]
    return ShapeChange(kind, tuple(reasons))


def _dimension(index: int) -> str:
    return "dimension 0 (batch)" if index == 0 else f"dimension {index}"


def input_shape_change(old: tuple[int, ...] | None, new: tuple[int, ...] | None) -> ShapeChange | None:
    """How an input's shape changed for clients: a request valid for `old` may be refused by `new`.

    A request's tensor fits the signature when it has its rank (when known)
    and its size in every known dimension; an unknown one accepts any size.
    """
    if old == new:
        return None
    if new is None:
        return ShapeChange("relaxed", ("any rank is now accepted",))
    if old is None:
        return ShapeChange(
            "breaking", (f"the rank is now fixed at {len(new)}; clients sending another rank are rejected",)
        )
    if len(old) != len(new):
        return ShapeChange(
            "breaking", (f"rank {len(old)} → {len(new)}; clients sending rank-{len(old)} tensors are rejected",)
        )
    breaking, relaxed = [], []
    for index, (was, now) in enumerate(zip(old, new)):
        if was == now:
            continue
        if now < 0:
            relaxed.append(f"{_dimension(index)} now accepts any size (was {was})")
        elif was < 0:
            example = "a batch of" if index == 0 else "size"
            breaking.append(
                f"{_dimension(index)} is now fixed at {now}; clients sending {example} {now + 1} are rejected"
            )
        else:
            breaking.append(f"{_dimension(index)} is now {now}, was {was}; clients sending {was} are rejected")
    if breaking:
        return _bounded("breaking", breaking)
    return _bounded("relaxed", relaxed)


def output_shape_change(old: tuple[int, ...] | None, new: tuple[int, ...] | None) -> ShapeChange | None:
    """How an output's shape changed for clients: what `new` returns may not be what clients of `old` read.

    A more precise shape (a dimension now known, a rank now fixed) returns
    nothing old clients could not read; a less precise one may; a different
    known rank or size is not what they read.
    """
    if old == new:
        return None
    if old is None:
        return ShapeChange("relaxed", (f"the rank is now always {len(new)}",)) if new is not None else None
    if new is None:
        return ShapeChange("risky", (f"the rank is no longer declared; clients expecting rank {len(old)} may break",))
    if len(old) != len(new):
        return ShapeChange(
            "breaking", (f"rank {len(old)} → {len(new)}; clients reading rank-{len(old)} tensors break",)
        )
    breaking, risky, relaxed = [], [], []
    for index, (was, now) in enumerate(zip(old, new)):
        if was == now:
            continue
        if was < 0:
            relaxed.append(f"{_dimension(index)} is now always {now}")
        elif now < 0:
            risky.append(f"{_dimension(index)} is no longer always {was}; clients relying on {was} may break")
        else:
            breaking.append(f"{_dimension(index)} is now {now}, was {was}; clients reading {was} values break")
    if breaking:
        return _bounded("breaking", breaking)
    if risky:
        return _bounded("risky", risky)
    return _bounded("relaxed", relaxed)


# -- what a version needs of TensorFlow ----------------------------------------------------------


def op_added_in(op: str) -> str | None:
    """The first bundled TensorFlow release that registers `op` (None: not bundled, or already in the oldest).

    An op every bundled release has (1.15 on) says nothing about the server's release, so it is
    None too; the release registries are read only when a version uses ops the other does not.
    """
    from tflint.tf import releases  # loads the per-release registries, which most runs never need

    first = releases.first_release_with_op(op)
    return None if first is None or first == releases.known_releases()[0] else first


def new_attrs(old_op: Any, new_op: Any) -> list[tuple[str, bool]]:
    """Attrs of `new_op`'s OpDef that `old_op`'s lacks: (name, has a default).

    Both are the stripped OpDefs TensorFlow writes into each version: the
    TensorFlow that wrote `old` did not know these attrs. One without a
    default is set on every node of the op (the old TensorFlow rejects it:
    "NodeDef mentions attr ... not in Op"); one with a default is stripped
    from nodes that keep it, so it breaks only where a node sets another value.
    """
    known = {attr.name for attr in old_op.attr}
    return [(attr.name, attr.HasField("default_value")) for attr in new_op.attr if attr.name not in known]


# -- messages --------------------------------------------------------------------------------------


def shown(text: str) -> str:
    """A name from the file, safe to print: escaped (no control characters, no quotes) and bounded."""
    escaped = text.encode("unicode_escape").decode("ascii").replace("'", "\\'")
    if len(escaped) > _SHOWN_CHARS:
        escaped = escaped[: _SHOWN_CHARS - 3] + "..."
    return escaped


def tag_set(tags: frozenset[str]) -> str:
    """`{serve, gpu}` (sorted), `{}` when empty."""
    return "{" + ", ".join(shown(tag) for tag in sorted(tags)) + "}"


def element(signature: str, direction: str | None = None, key: str | None = None) -> str:
    """`serving_default input 'image'`: the element of the interface a message is about."""
    if direction is None:
        return f"signature '{shown(signature)}'"
    side = "input" if direction == "inputs" else "output"
    return f"{shown(signature)} {side} '{shown(key or '')}'"


def change(pair: VersionPair, old: str, new: str) -> str:
    """`[-1,4] in version 1 → [1,4] in version 2`: a value in each version, each named."""
    return f"{old} in {shown(pair.old.name)} → {new} in {shown(pair.new.name)}"

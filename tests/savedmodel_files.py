"""Write the files of a SavedModel directory besides its graph, from a short description (tests only).

A checkpoint from `{key: (dtype name, shape)}` (zero-valued tensors, each with its CRC-32C) and a
warm-up file from `[{"signature": name, "inputs": {alias: (dtype name, shape)}}]` (predict requests),
in TensorFlow's formats: a tensor bundle in the table format, TFRecords of PredictionLogs. Also the
mutations the rules' examples and tests describe: truncate a file to half, flip a byte.
"""

from __future__ import annotations

from pathlib import Path

from tflint.protos import DATA_TYPE, TensorProto
from tflint.read import crc32c
from tflint.wire import varint

MAGIC = (0xDB4775248B80FB57).to_bytes(8, "little")
SIZES = {"DT_FLOAT": 4, "DT_DOUBLE": 8, "DT_INT32": 4, "DT_INT64": 8, "DT_BOOL": 1, "DT_UINT8": 1}


def field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def number_field(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def block(entries: list[tuple[bytes, bytes]]) -> bytes:
    body = b"".join(varint(0) + varint(len(key)) + varint(len(value)) + key + value for key, value in entries)
    return body + (0).to_bytes(4, "little") + (1).to_bytes(4, "little")


def trailer(contents: bytes, kind: int = 0) -> bytes:
    return bytes([kind]) + crc32c.mask(crc32c.value(contents + bytes([kind]))).to_bytes(4, "little")


def table(entries: list[tuple[bytes, bytes]]) -> bytes:
    """A table with one data block of `entries`, an empty metaindex block and an index block."""
    data = block(entries)
    out = data + trailer(data)
    meta = block([])
    meta_at = len(out)
    out += meta + trailer(meta)
    index = block([(b"\xff", varint(0) + varint(len(data)))])
    index_at = len(out)
    out += index + trailer(index)
    footer = varint(meta_at) + varint(len(meta)) + varint(index_at) + varint(len(index))
    return out + footer.ljust(40, b"\0") + MAGIC


def shape_proto(dims: list[int]) -> bytes:
    return b"".join(field(2, number_field(1, size)) for size in dims)


def write_checkpoint(root: Path, tensors: dict[str, tuple[str, list[int]]]) -> None:
    """variables/variables.index and one data shard holding zero tensors of these dtypes and shapes."""
    variables = root / "variables"
    variables.mkdir(parents=True, exist_ok=True)
    header = number_field(1, 1) + field(3, number_field(1, 1))
    entries = [(b"", header)]
    shard = b""
    for key in sorted(tensors):
        dtype, dims = tensors[key]
        count = 1
        for size in dims:
            count *= size
        data = bytes(SIZES[dtype] * count)
        entry = (
            number_field(1, DATA_TYPE.values_by_name[dtype].number)
            + field(2, shape_proto(dims))
            + number_field(4, len(shard))
            + number_field(5, len(data))
            + varint(6 << 3 | 5)
            + crc32c.mask(crc32c.value(data)).to_bytes(4, "little")
        )
        entries.append((key.encode(), entry))
        shard += data
    (variables / "variables.index").write_bytes(table(entries))
    (variables / "variables.data-00000-of-00001").write_bytes(shard)


def tfrecord(payload: bytes) -> bytes:
    length = len(payload).to_bytes(8, "little")
    return (
        length
        + crc32c.mask(crc32c.value(length)).to_bytes(4, "little")
        + payload
        + crc32c.mask(crc32c.value(payload)).to_bytes(4, "little")
    )


def predict_log(signature: str, inputs: dict[str, tuple[str, list[int]]]) -> bytes:
    """A PredictionLog holding a predict request (field numbers of TF Serving's prediction_log.proto)."""
    request = field(1, field(1, b"model") + (field(3, signature.encode()) if signature else b""))
    for alias, (dtype, dims) in inputs.items():
        tensor = TensorProto()
        tensor.dtype = DATA_TYPE.values_by_name[dtype].number
        count = 1
        for size in dims:
            tensor.tensor_shape.dim.add().size = size
            count *= size
        tensor.tensor_content = bytes(SIZES[dtype] * count)
        request += field(2, field(1, alias.encode()) + field(2, tensor.SerializeToString()))
    return field(6, field(1, request))


def write_warmup(root: Path, requests: list[dict]) -> None:
    path = root / "assets.extra" / "tf_serving_warmup_requests"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(tfrecord(predict_log(r.get("signature", ""), r.get("inputs", {}))) for r in requests))


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def flip(path: Path, where: int = -1) -> None:
    data = bytearray(path.read_bytes())
    data[where] ^= 0xFF
    path.write_bytes(bytes(data))


def write_example_directory(root: Path, meta_graph_text: str, files: dict, kind: str) -> Path:
    """A SavedModel directory for a rule's docstring example: its meta graph (as text) and the files described.

    `files` is the rule's EXAMPLE_FILES: "checkpoint", "warmup", and per example kind ("Okay",
    "Fail") overrides and mutations ("truncate" or "flip" a file).
    """
    described = {**files, **files.get(kind, {})}
    root.mkdir(parents=True, exist_ok=True)
    tags = "" if "meta_info_def" in meta_graph_text else '  meta_info_def { tags: "serve" }\n'
    (root / "saved_model.pbtxt").write_text("meta_graphs {\n" + meta_graph_text + tags + "}\n", encoding="utf-8")
    if "checkpoint" in described:
        write_checkpoint(root, described["checkpoint"])
    if "warmup" in described:
        write_warmup(root, described["warmup"])
    if "truncate" in described:
        truncate(root / described["truncate"])
    if "flip" in described:
        flip(root / described["flip"], 0 if "variables" in described["flip"] else -1)
    return root


def _strings(name: str, values: list[str]) -> str:
    listed = " ".join(f'string_val: "{value}"' for value in values)
    return (
        f'    node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: DT_STRING }} }}\n'
        f'      attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING tensor_shape {{ dim {{ size: {len(values)} }} }} '
        f"{listed} }} }} }} }}\n"
    )


def restoring_meta_graph(keys: list[tuple[str, str]], variables: dict[str, list[int]] | None = None) -> str:
    """A TF1-style meta graph whose saver restores `keys` [(key, dtype name)], each assigned to a variable of its name.

    `variables` gives the shape of the VariableV2 each key is assigned to (keys without one are
    restored but assigned to nothing). The `restore_op_name` line is the one findings land on.
    """
    variables = variables or {}
    text = "  graph_def {\n"
    text += (
        '    node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }\n'
        '      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }\n'
    )
    text += _strings("save/RestoreV2/tensor_names", [key for key, _ in keys])
    text += _strings("save/RestoreV2/shape_and_slices", ["" for _ in keys])
    types = " ".join(f"type: {dtype}" for _, dtype in keys)
    text += (
        '    node { name: "save/RestoreV2" op: "RestoreV2" input: "save/Const" input: "save/RestoreV2/tensor_names"\n'
        f'      input: "save/RestoreV2/shape_and_slices" attr {{ key: "dtypes" value {{ list {{ {types} }} }} }} }}\n'
    )
    assigns = []
    for index, (key, dtype) in enumerate(keys):
        if key not in variables:
            continue
        dims = " ".join(f"dim {{ size: {size} }}" for size in variables[key])
        text += (
            f'    node {{ name: "{key}" op: "VariableV2" attr {{ key: "dtype" value {{ type: {dtype} }} }}\n'
            f'      attr {{ key: "shape" value {{ shape {{ {dims} }} }} }} }}\n'
            f'    node {{ name: "save/Assign_{index}" op: "Assign" input: "{key}" input: "save/RestoreV2:{index}"\n'
            f'      attr {{ key: "T" value {{ type: {dtype} }} }} }}\n'
        )
        assigns.append(f'input: "^save/Assign_{index}"')
    control = " ".join(assigns) if assigns else 'input: "^save/RestoreV2"'
    text += f'    node {{ name: "save/restore_all" op: "NoOp" {control} }}\n'
    text += "  }\n"
    text += '  saver_def {\n    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"\n'
    text += '    restore_op_name: "save/restore_all"\n  }\n'
    return text


def restore_line(meta_graph_text: str) -> int:
    """The line of `restore_op_name` in saved_model.pbtxt (the meta graph is written after `meta_graphs {`)."""
    return 1 + next(number for number, line in enumerate(meta_graph_text.splitlines(), 1) if "restore_op_name" in line)


def write_model(root: Path, meta_graph_text: str, checkpoint: dict | None = None, warmup: list | None = None) -> Path:
    """A SavedModel directory: the meta graph as saved_model.pbtxt, a checkpoint and a warm-up file if given."""
    files: dict = {}
    if checkpoint is not None:
        files["checkpoint"] = checkpoint
    if warmup is not None:
        files["warmup"] = warmup
    return write_example_directory(root, meta_graph_text, files, "Okay")

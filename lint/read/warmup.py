"""TF Serving's warm-up requests (`assets.extra/tf_serving_warmup_requests`): TFRecord framing and PredictionLogs.

TF Serving reads this file when it loads a model and runs every request in it before the model
serves; a record it cannot read, parse or run refuses the model. The file is TFRecords: per
record a little-endian uint64 length, the masked CRC-32C of those 8 bytes, the data, the masked
CRC-32C of the data. TensorFlow's reader says "corrupted record at OFFSET" for a CRC that does
not match and "truncated record at OFFSET" for a file that ends inside a record. TF Serving
accepts at most 1000 records (WarmupConsts::kMaxNumRecords): the 1001st fails the load.

Each record is a `tensorflow.serving.PredictionLog`, decoded here by hand (field numbers from TF
Serving's public API, prediction_log.proto, predict.proto, classification.proto,
regression.proto, inference.proto, model.proto): which request it is, the ModelSpec's signature
name, and for a predict request its inputs (each a TensorProto, parsed with tflint's schema).
Fields tflint does not use (the logged responses, metadata, the Examples of a classify or
regress request) are checked for wire format only where they are walked.
"""

from __future__ import annotations

from typing import Any

from tflint.protos import TensorProto
from tflint.read import crc32c
from tflint.read.guarded import UnreadableFile, read_bytes
from tflint.records import record
from tflint.tf.warmup import WARMUP_FILE
from tflint.wire import LENGTH_DELIMITED, WireError, fields

MAX_RECORDS = 1000  # TF Serving's WarmupConsts::kMaxNumRecords
# Warm-up files hold a handful of requests; a larger file is reported as not read, never half-read.
MAX_WARMUP_BYTES = 64 << 20
HEADER_BYTES = 12  # length (8) and its masked CRC (4)
# The records' data is checksummed up to this many bytes (pure-Python CRC-32C runs at tens of MB/s, and
# every lint of the model reads the file); past it only the framing (lengths, their CRCs) is checked.
MAX_CHECKSUMMED_BYTES = 16 << 20

# PredictionLog's request kinds (the oneof log_type), by field number, and what TF Serving runs.
LOG_KINDS = {2: "classify", 3: "regress", 4: "multi_inference", 5: "session_run", 6: "predict", 7: "predict_streamed"}


@record(frozen=True)
class WarmupRequest:
    """One record's request: its kind ("predict", ...), signature name, inputs, and the tasks of a multi-inference."""

    number: int  # 0-based record number
    offset: int  # where the record starts in the file
    kind: str | None  # None: no request in the log (TF Serving skips it)
    signature_name: str
    inputs: tuple[tuple[str, Any], ...]  # predict: (alias, TensorProto or None when it does not parse)
    tasks: tuple[tuple[str, str], ...]  # multi_inference: (signature name, method name)

    def __init__(
        self,
        number: int,
        offset: int,
        kind: str | None,
        signature_name: str = "",
        inputs: tuple[tuple[str, Any], ...] = (),
        tasks: tuple[tuple[str, str], ...] = (),
    ) -> None:
        vars(self).update(
            number=number, offset=offset, kind=kind, signature_name=signature_name, inputs=inputs, tasks=tasks
        )


@record(frozen=True)
class WarmupFile:
    """The requests of a warm-up file, in order, and what stopped the reading (TF Serving's error), if anything."""

    requests: tuple[WarmupRequest, ...]
    problem: str | None
    offset: int | None  # where the problem is, in the file

    def __init__(
        self, requests: tuple[WarmupRequest, ...], problem: str | None = None, offset: int | None = None
    ) -> None:
        vars(self).update(requests=requests, problem=problem, offset=offset)


def read_warmup_file(path: str) -> WarmupFile:
    """The warm-up file at `path` (it exists): its requests, or the first problem TF Serving would fail on."""
    try:
        data = read_bytes(path, "warm-up requests", limit=MAX_WARMUP_BYTES)
    except UnreadableFile as error:
        return WarmupFile((), f"tflint could not read it: {str(error).removeprefix(path + ': ')}")
    return parse_warmup(data)


def parse_warmup(data: bytes) -> WarmupFile:
    """The requests of TFRecord bytes, as TF Serving reads them."""
    requests: list[WarmupRequest] = []
    view = memoryview(data)
    position = checked = 0
    while position < len(data):
        start = position
        if len(data) - position < HEADER_BYTES:
            return WarmupFile(tuple(requests), f"truncated record at {start}", start)
        length = int.from_bytes(view[position : position + 8], "little")
        stored = int.from_bytes(view[position + 8 : position + 12], "little")
        if crc32c.mask(crc32c.value(view[position : position + 8])) != stored:
            return WarmupFile(tuple(requests), f"corrupted record at {start}", start)
        position += HEADER_BYTES
        if length + 4 > len(data) - position:
            return WarmupFile(tuple(requests), f"truncated record at {start}", start)
        payload = view[position : position + length]
        stored = int.from_bytes(view[position + length : position + length + 4], "little")
        checked += length
        if checked <= MAX_CHECKSUMMED_BYTES and crc32c.mask(crc32c.value(payload)) != stored:
            return WarmupFile(tuple(requests), f"corrupted record at {start}", start)
        position += length + 4
        if len(requests) >= MAX_RECORDS:
            return WarmupFile(tuple(requests), f"Number of warmup records exceeds the maximum ({MAX_RECORDS})", start)
        try:
            requests.append(_prediction_log(payload, len(requests), start))
        except WireError:
            return WarmupFile(tuple(requests), f"Failed to parse warmup record {len(requests)}", start)
    return WarmupFile(tuple(requests))


def _prediction_log(data: memoryview, number: int, offset: int) -> WarmupRequest:
    kind_number, start, stop = 0, 0, 0
    for field, wire, _, begin, end in fields(data):
        if field in LOG_KINDS:
            if wire != LENGTH_DELIMITED:
                raise WireError("a log of the wrong wire type")
            kind_number, start, stop = field, begin, end  # a oneof: the last one parsed wins
        elif field == 1 and wire == LENGTH_DELIMITED:
            list(fields(data, begin, end))
    if not kind_number:
        return WarmupRequest(number, offset, None)
    kind = LOG_KINDS[kind_number]
    request = _submessage(data, start, stop, 1)
    if request is None:
        return WarmupRequest(number, offset, kind)
    begin, end = request
    signature = ""
    inputs: list[tuple[str, Any]] = []
    tasks: list[tuple[str, str]] = []
    for field, wire, _, low, high in fields(data, begin, end):
        if wire != LENGTH_DELIMITED:
            continue
        if field == 1 and kind in ("predict", "classify", "regress", "predict_streamed"):
            signature = _signature_name(data, low, high)
        elif field == 2 and kind in ("predict", "predict_streamed"):
            inputs.append(_input_entry(data, low, high))
        elif field == 1 and kind == "multi_inference":
            tasks.append(_task(data, low, high))
        else:
            list(fields(data, low, high))
    return WarmupRequest(number, offset, kind, signature, tuple(inputs), tuple(tasks))


def _submessage(data: memoryview, begin: int, end: int, number: int) -> tuple[int, int] | None:
    found = None
    for field, wire, _, low, high in fields(data, begin, end):
        if field == number and wire == LENGTH_DELIMITED:
            found = (low, high)
    return found


def _text(data: memoryview, begin: int, end: int) -> str:
    try:
        return bytes(data[begin:end]).decode("utf-8")
    except UnicodeDecodeError:
        raise WireError("a string field is not UTF-8 (protobuf refuses it)") from None


def _signature_name(data: memoryview, begin: int, end: int) -> str:
    """A ModelSpec's signature_name (field 3)."""
    name = ""
    for field, wire, _, low, high in fields(data, begin, end):
        if wire == LENGTH_DELIMITED and field in (1, 3, 4):
            text = _text(data, low, high)
            if field == 3:
                name = text
    return name


def _task(data: memoryview, begin: int, end: int) -> tuple[str, str]:
    signature = method = ""
    for field, wire, _, low, high in fields(data, begin, end):
        if wire != LENGTH_DELIMITED:
            continue
        if field == 1:
            signature = _signature_name(data, low, high)
        elif field == 2:
            method = _text(data, low, high)
    return signature, method


def _input_entry(data: memoryview, begin: int, end: int) -> tuple[str, Any]:
    """A map entry of PredictRequest.inputs: (alias, TensorProto or None when its bytes do not parse)."""
    key = ""
    value: Any = TensorProto()
    for field, wire, _, low, high in fields(data, begin, end):
        if wire != LENGTH_DELIMITED:
            continue
        if field == 1:
            key = _text(data, low, high)
        elif field == 2:
            try:
                value = TensorProto.FromString(bytes(data[low:high]))
            except Exception:  # protobuf's DecodeError, whichever implementation raised it
                raise WireError(f"input {key!r} is not a TensorProto") from None
    return key, value


__all__ = ["MAX_RECORDS", "WARMUP_FILE", "WarmupFile", "WarmupRequest", "parse_warmup", "read_warmup_file"]

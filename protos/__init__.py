"""TensorFlow's graph schema (GraphDef, MetaGraphDef, SavedModel, ...) as message classes from a private descriptor pool."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from google.protobuf import descriptor
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.internal import api_implementation
from google.protobuf.message import Message

if TYPE_CHECKING:
    from google.protobuf.descriptor_pool import DescriptorPool

__all__ = [
    "POOL",
    "DATA_TYPE",
    "message_class",
    "is_repeated",
    "GraphDef",
    "NodeDef",
    "AttrValue",
    "NameAttrList",
    "TensorProto",
    "TensorShapeProto",
    "ResourceHandleProto",
    "VersionDef",
    "GraphDebugInfo",
    "FullTypeDef",
    "FunctionDefLibrary",
    "FunctionDef",
    "GradientDef",
    "OpList",
    "OpDef",
    "OpDeprecation",
    "MetaGraphDef",
    "SavedModel",
    "SignatureDef",
    "TensorInfo",
    "CollectionDef",
    "SaverDef",
    "AssetFileDef",
    "SavedObjectGraph",
]

_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tflint_schema.binpb")


def _serialized_files(data: bytes) -> list[bytes]:
    """Split a FileDescriptorSet into its serialized FileDescriptorProtos.

    Hand-decoding the one repeated field avoids importing descriptor_pb2 (tens of ms on the
    pure-Python path) and re-serializing every file just to hand it back to the pool.
    """
    files: list[bytes] = []
    pos, end = 0, len(data)
    while pos < end:
        if data[pos] != 0x0A:  # field 1 (file), wire type 2: the only field protoc writes
            raise ValueError(f"{_SCHEMA}: unexpected tag {data[pos]:#x} at offset {pos}")
        pos += 1
        size = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            size |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        files.append(data[pos : pos + size])
        pos += size
    return files


# upb (protobuf's default implementation) builds pools and message classes in C: its DescriptorPool
# and MessageMeta are used directly, which spares importing descriptor_pool and message_factory, and
# with them the pure-Python message implementation and text_format (10-20 ms of every run). Any other
# implementation (python, cpp), or a upb without these, goes through the public modules.
_UPB: Any = getattr(descriptor, "_message", None) if api_implementation.Type() == "upb" else None
if _UPB is not None and not (hasattr(_UPB, "DescriptorPool") and hasattr(_UPB, "MessageMeta")):
    _UPB = None


def _load_pool() -> DescriptorPool:
    # Never the default pool: TensorFlow registers the same full names (tensorflow.GraphDef, ...)
    # there, and tflint must coexist with it in one process whichever is imported first.
    if _UPB is not None:
        pool: DescriptorPool = _UPB.DescriptorPool()
    else:
        from google.protobuf import descriptor_pool

        pool = descriptor_pool.DescriptorPool()
    with open(_SCHEMA, "rb") as f:
        data = f.read()
    # protoc --include_imports writes dependencies before their dependents.
    for blob in _serialized_files(data):
        pool.AddSerializedFile(blob)
    return pool


POOL: DescriptorPool = _load_pool()
_classes: dict[str, type[Message]] = {}


def message_class(full_name: str) -> type[Message]:
    """The message class for a full name in POOL, e.g. "tensorflow.SavedObject"."""
    found = _classes.get(full_name)
    if found is None:
        found = _classes[full_name] = _build_class(POOL.FindMessageTypeByName(full_name))
    return found


def _build_class(message_type: Descriptor) -> type[Message]:
    """The class of `message_type`, and of every message its fields hold, as message_factory makes them."""
    if _UPB is None:
        from google.protobuf import message_factory

        built: type[Message] = message_factory.GetMessageClass(message_type)
        return built
    # What message_factory.GetMessageClass does for upb: the class, then those of its message
    # fields (POOL has no extensions), each made once.
    built = _UPB.MessageMeta(message_type.name, (Message,), {"DESCRIPTOR": message_type, "__module__": None})
    _classes[message_type.full_name] = built
    for field in message_type.fields:
        if field.message_type is not None and field.message_type.full_name not in _classes:
            _build_class(field.message_type)
    return built


def is_repeated(field: FieldDescriptor) -> bool:
    """Whether a field is repeated (or a map), on every supported protobuf version."""
    # protobuf 7 dropped FieldDescriptor.label; 4.25 has no is_repeated yet.
    flag = getattr(field, "is_repeated", None)
    return bool(flag) if flag is not None else bool(field.label == FieldDescriptor.LABEL_REPEATED)


DATA_TYPE: EnumDescriptor = POOL.FindEnumTypeByName("tensorflow.DataType")

GraphDef = message_class("tensorflow.GraphDef")
NodeDef = message_class("tensorflow.NodeDef")
AttrValue = message_class("tensorflow.AttrValue")
NameAttrList = message_class("tensorflow.NameAttrList")
TensorProto = message_class("tensorflow.TensorProto")
TensorShapeProto = message_class("tensorflow.TensorShapeProto")
ResourceHandleProto = message_class("tensorflow.ResourceHandleProto")
VersionDef = message_class("tensorflow.VersionDef")
GraphDebugInfo = message_class("tensorflow.GraphDebugInfo")
FullTypeDef = message_class("tensorflow.FullTypeDef")
FunctionDefLibrary = message_class("tensorflow.FunctionDefLibrary")
FunctionDef = message_class("tensorflow.FunctionDef")
GradientDef = message_class("tensorflow.GradientDef")
OpList = message_class("tensorflow.OpList")
OpDef = message_class("tensorflow.OpDef")
OpDeprecation = message_class("tensorflow.OpDeprecation")
MetaGraphDef = message_class("tensorflow.MetaGraphDef")
SavedModel = message_class("tensorflow.SavedModel")
SignatureDef = message_class("tensorflow.SignatureDef")
TensorInfo = message_class("tensorflow.TensorInfo")
CollectionDef = message_class("tensorflow.CollectionDef")
SaverDef = message_class("tensorflow.SaverDef")
AssetFileDef = message_class("tensorflow.AssetFileDef")
SavedObjectGraph = message_class("tensorflow.SavedObjectGraph")

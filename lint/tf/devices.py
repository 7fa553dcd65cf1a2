"""TensorFlow's two device-string parsers, reimplemented: C++ `ParseFullName` and Python `DeviceSpec`.

TensorFlow reads a NodeDef's `device` twice, with grammars that disagree:

- Python's `DeviceSpec.from_string` (python/framework/device_spec.py) runs
  when `tf.import_graph_def` re-applies each imported op's device, and when
  `tf.saved_model.load` rebuilds library functions (`function_def_to_graph`).
  It raises `ValueError`.
- C++ `DeviceNameUtils::ParseFullName` (xla/tsl/util/device_name_utils.cc)
  runs when the placer assigns devices (a Session's first run, a function
  call, the C++ SavedModel loader, TF Serving). It fails with
  `Malformed device specification '...'`.

Both functions below return None for a string their parser accepts and a
short English reason otherwise. They follow TensorFlow's code step by step
(the order of checks decides which reason is given), not a regex.
"""

from __future__ import annotations

import functools
from typing import Any

# DeviceSpec's built-in device types (`_VALID_DEVICE_TYPES`); pluggable
# devices registered in the running process are added to these at run time.
PYTHON_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})

_UINT64_MAX = (1 << 64) - 1
_CPP_COMPONENTS = "/job:, /replica:, /task:, /device:, /cpu:, /gpu:, /CPU: or /GPU:"


def _is_alpha(char: str) -> bool:
    return ("a" <= char <= "z") or ("A" <= char <= "Z")


def _is_alnum_or_underscore(char: str) -> bool:
    return _is_alpha(char) or ("0" <= char <= "9") or char == "_"


class _CppScanner:
    """A cursor over the device string, with ParseFullName's consume helpers."""

    __slots__ = ("text", "at")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    @property
    def rest(self) -> str:
        return self.text[self.at :]

    def done(self) -> bool:
        return self.at >= len(self.text)

    def consume(self, prefix: str) -> bool:
        if self.text.startswith(prefix, self.at):
            self.at += len(prefix)
            return True
        return False

    def consume_name(self, terminators: str, what: str) -> str | None:
        """`ConsumePrefix`: a letter, then letters/digits/`_` up to a terminator; None or a reason."""
        rest = self.rest
        if not rest:
            return f"{what} is missing"
        if not _is_alpha(rest[0]):
            return f"{what} {_shown(rest, terminators)} does not start with a letter"
        end = len(rest)
        for offset, char in enumerate(rest):
            if char in terminators:
                end = offset
                break
        name = rest[:end]
        if not all(_is_alnum_or_underscore(char) for char in name):
            return f"{what} '{name}' may contain only letters, digits and '_'"
        self.at += end
        return None

    def consume_number(self, what: str) -> str | None:
        """`ConsumeLeadingDigits` into a uint64 (leading zeros fine, overflow fails); None or a reason."""
        rest = self.rest
        end = 0
        while end < len(rest) and "0" <= rest[end] <= "9":
            end += 1
        if end == 0:
            return f"{what} must be digits or '*', not {_shown(rest, '/')}"
        if int(rest[:end]) > _UINT64_MAX:
            return f"{what} {rest[:end]} does not fit in 64 bits"
        self.at += end
        return None


def _shown(rest: str, terminators: str) -> str:
    """The next token of `rest` for a message (up to a terminator), or 'nothing'."""
    end = len(rest)
    for offset, char in enumerate(rest):
        if char in terminators:
            end = offset
            break
    return f"'{rest[:end]}'" if end else ("nothing" if not rest else f"'{rest[0]}'")


@functools.lru_cache(maxsize=8192)
def cpp_device_error(device: str) -> str | None:
    """Why C++ `DeviceNameUtils::ParseFullName` rejects `device` (None when it accepts it).

    The grammar: `""` and `"/"` are valid; otherwise a sequence, in any order
    and with repeats (the last wins), of `/job:` (`*` or a name
    `[A-Za-z][A-Za-z0-9_]*` ended by `/` or the end), `/replica:` and
    `/task:` (`*` or digits), `/device:` (`*` or a type ended by `/`, `:` or
    the end, optionally `:` then `*` or digits), and the legacy `/cpu:`,
    `/CPU:`, `/gpu:`, `/GPU:` followed by `*` or digits. Numbers are ASCII
    digits that fit in 64 bits.
    """
    if device == "/":
        return None
    scan = _CppScanner(device)
    while not scan.done():
        progress = False
        if scan.consume("/job:"):
            if not scan.consume("*"):
                problem = scan.consume_name("/", "job name")
                if problem:
                    return problem
            progress = True
        for field in ("replica", "task"):
            if scan.consume(f"/{field}:"):
                if not scan.consume("*"):
                    problem = scan.consume_number(f"the {field} number")
                    if problem:
                        return problem
                progress = True
        if scan.consume("/device:"):
            if not scan.consume("*"):
                problem = scan.consume_name("/:", "device type")
                if problem:
                    return problem
            if scan.consume(":") and not scan.consume("*"):
                problem = scan.consume_number("the device index")
                if problem:
                    return problem
            progress = True
        for legacy in ("cpu", "gpu"):
            if scan.consume(f"/{legacy}:") or scan.consume(f"/{legacy.upper()}:"):
                if not scan.consume("*"):
                    problem = scan.consume_number(f"the /{legacy}: index")
                    if problem:
                        return problem
                progress = True
        if not progress:
            return _no_component(scan.rest, scan.at)
    return None


def _no_component(rest: str, offset: int) -> str:
    """The reason for text that starts no known component, with a hint for common slips."""
    where = f"'{rest}'" if offset == 0 else f"'{rest}' (at offset {offset})"
    reason = f"{where} is not a device component"  # the list of components only when there is no hint
    if not rest.startswith("/"):
        return f"{reason}; components start with '/'"
    kind, colon, index = rest[1:].split("/", 1)[0].partition(":")
    if kind.lower() in ("cpu", "gpu"):
        if not colon:
            return f"{reason}; the legacy form needs an index: /{kind}:0 or /{kind}:*"
        return f"{reason}; the legacy form is spelled /{kind.lower()}: or /{kind.upper()}: exactly"
    if colon and kind not in ("job", "replica", "task", "device"):
        return f"{reason}; write /device:{kind.upper()}:{index or '0'} (only cpu and gpu have a short form)"
    return f"{where} starts none of {_CPP_COMPONENTS}"


@functools.lru_cache(maxsize=8192)
def python_device_error(device: str, extra_types: frozenset[str] = frozenset()) -> str | None:
    """Why Python `DeviceSpec.from_string` rejects `device` (None when it accepts it).

    The string is split on `/`, each piece on `:`; pieces are read in order:
    `job:<any>`, `replica:<int>`, `task:<int>` (the last of each wins and is
    converted with `int()` only at the end), `<T>` or `<T>:<int|*>` where
    `T.upper()` is a known device type, `device:<any>:<int|*>`; a piece
    whose first part is empty is ignored, any other piece is an error, and
    naming a device type twice is an error. `extra_types` adds pluggable
    device types (TensorFlow adds those registered in the process).
    """
    return _python_parse(device, extra_types)[0]


@functools.lru_cache(maxsize=8192)
def python_canonical_name(device: str, extra_types: frozenset[str] = frozenset()) -> str | None:
    """The string `DeviceSpec.from_string(device).to_string()` gives (None when it raises).

    `tf.import_graph_def` stores this form on the imported op, so it is what
    the C++ placer parses after a Python import.
    """
    error, components = _python_parse(device, extra_types)
    if error is not None:
        return None
    job, replica, task, device_type, index = components
    parts = []
    if job is not None:
        parts.append(f"/job:{job}")
    if replica is not None:
        parts.append(f"/replica:{int(replica)}")
    if task is not None:
        parts.append(f"/task:{int(task)}")
    if device_type is not None:
        parts.append(f"/device:{device_type}:{'*' if index is None else int(index)}")
    return "".join(parts)


def _python_parse(device: str, extra_types: frozenset[str]) -> tuple[str | None, tuple[Any, ...]]:
    """DeviceSpec's `_string_to_components` plus its constructor's conversions: (error, components)."""
    known = PYTHON_DEVICE_TYPES | extra_types
    job = replica = task = device_type = index = None
    for piece in device.split("/"):
        parts = piece.split(":")
        count = len(parts)
        head = parts[0]
        if count == 2 and head == "job":
            job = parts[1]
        elif count == 2 and head == "replica":
            replica = parts[1]
        elif count == 2 and head == "task":
            task = parts[1]
        elif count in (1, 2) and head.upper() in known:
            if device_type is not None:
                return f"it names more than one device type (a second one in '{piece}')", ()
            device_type = head.upper()
            if count == 2 and parts[1] != "*":
                if not _is_python_int(parts[1]):
                    return f"the device index '{parts[1]}' in '{piece}' is not an integer", ()
                index = parts[1]
        elif count == 3 and head == "device":
            if device_type is not None:
                return f"it names more than one device type (a second one in '{piece}')", ()
            # The constructor upper-cases exactly "cpu" and "gpu", nothing else.
            device_type = parts[1].upper() if parts[1] in ("cpu", "gpu") else parts[1]
            if parts[2] != "*":
                if not _is_python_int(parts[2]):
                    return f"the device index '{parts[2]}' in '{piece}' is not an integer", ()
                index = parts[2]
        elif head != "":
            return _python_unknown(piece, parts, known), ()
    for field, value in (("replica", replica), ("task", task)):
        if value is not None and not _is_python_int(value):
            return f"the {field} '{value}' is not an integer", ()
    return None, (job, replica, task, device_type, index)


def _python_unknown(piece: str, parts: list[str], known: frozenset[str]) -> str:
    """DeviceSpec's `Unknown attribute` error, with a hint for the usual causes."""
    head = parts[0]
    reason = f"unknown component '{piece}'"
    if head == "device" and len(parts) == 2:
        return f"{reason}: a device type needs an index ('device:{parts[1]}:0' or 'device:{parts[1]}:*')"
    if head in ("job", "replica", "task", "device"):
        return (
            f"{reason}: '{head}' takes exactly one value"
            if head != "device"
            else f"{reason}: 'device' takes a type and an index"
        )
    if len(parts) <= 2:
        return f"{reason}: '{head}' is not a device type Python knows ({', '.join(sorted(known))})"
    return reason


def _is_python_int(text: str) -> bool:
    """Whether Python's `int(text)` accepts `text` (signs, spaces, `_` and Unicode digits included)."""
    try:
        int(text)
    except ValueError:
        return False
    return True

"""Value classes with what `@dataclass` gives them, without its cost at start-up.

`@dataclass` writes each class's methods out as source text and compiles it while the module is
imported (about 1 ms a class, 50 classes on the way to a first finding), and importing
`dataclasses` imports `inspect` with it: together a third of a small file's lint. A record is a
plain class: its fields are annotated in the class body and its `__init__` is written out (so it
is compiled once, into the .pyc, like any code); `record` adds the rest as a dataclass has it:

- `__repr__`: `Name(field=value, ...)`, the fields in order (but the `hidden` ones);
- `__eq__`: an instance of the same class with equal fields (but the `hidden` ones);
- `__hash__`: a frozen record hashes its compared fields; a mutable one is unhashable;
- frozen: assigning or deleting an attribute raises `dataclasses.FrozenInstanceError` (so
  `__init__` sets fields with `object.__setattr__`, or `vars(self).update` without `__slots__`),
  and a record with `__slots__` pickles through its `__init__`;
- `replace(record, **changes)`: a copy with some fields changed, as `dataclasses.replace`.

Methods the class defines itself are kept, as `@dataclass` keeps them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - Python 3.10 runs without the marker; type checkers read the branch above

    def dataclass_transform(**kwargs: Any) -> Callable[[T], T]:
        return lambda decorated: decorated


# Type checkers and IDEs read a record as the dataclass it replaces: its fields, equality, and
# `frozen=True` refusing assignment (the marker costs nothing at run time). `@dataclass(slots=True)`
# itself was measured at +73 ms to import tflint's 53 records (bench/records_startup.py).
@dataclass_transform()
def record(*, frozen: bool = False, hidden: tuple[str, ...] = ()) -> Callable[[type[T]], type[T]]:
    """Give a class with annotated fields and an `__init__` the methods `@dataclass(frozen=...)` would.

    `hidden` fields are left out of `__repr__`, `__eq__` and `__hash__` (`field(repr=False, compare=False)`).
    """

    def decorate(cls: type[T]) -> type[T]:
        names = tuple(cls.__dict__.get("__annotations__", {}))
        unknown = set(hidden) - set(names)
        if unknown:
            raise TypeError(f"{cls.__name__}: hidden names no field: {sorted(unknown)}")
        compared = tuple(name for name in names if name not in hidden)
        values, key = _getter(names), _getter(compared)
        own = cls.__dict__
        setattr(cls, "__record_fields__", names)
        if "__repr__" not in own:
            setattr(cls, "__repr__", _repr(compared, key))
        if "__eq__" not in own:
            setattr(cls, "__eq__", _eq(key))
        if "__hash__" not in own or own["__hash__"] is None:
            setattr(cls, "__hash__", _hash(key) if frozen else None)
        if frozen:
            setattr(cls, "__setattr__", _refuse_assignment)
            setattr(cls, "__delattr__", _refuse_deletion)
            if "__slots__" in own:  # pickle's default sets slots with setattr, which a frozen record refuses

                def __reduce__(self: Any) -> tuple[Any, ...]:
                    return (self.__class__, values(self))

                setattr(cls, "__reduce__", __reduce__)
        return cls

    return decorate


def replace(obj: T, **changes: Any) -> T:
    """A copy of the record `obj` with `changes` (field name -> value), made with its `__init__`."""
    names: tuple[str, ...] = getattr(type(obj), "__record_fields__")
    fields = {name: getattr(obj, name) for name in names}
    fields.update(changes)
    return type(obj)(**fields)


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function from a record to the tuple of its values of `names` (attrgetter, always a tuple)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _repr(names: tuple[str, ...], key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, key(self)))
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _refuse_assignment(self: Any, name: str, value: Any) -> None:
    from dataclasses import FrozenInstanceError  # only on this error path: the module costs start-up time

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_deletion(self: Any, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")

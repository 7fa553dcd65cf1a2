"""tflint.records: plain classes behave as the dataclasses they replace (repr, equality, hashing,
immutability, pickling, replace), and every record's __init__ takes exactly its fields, in order."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil

import pytest

import tflint
from tflint.finding import Finding, Issue, Severity
from tflint.records import record, replace


@dataclasses.dataclass(frozen=True)
class FrozenDataclass:
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()


@record(frozen=True)
class FrozenRecord:
    name: str
    size: int
    tags: tuple[str, ...]

    def __init__(self, name: str, size: int = 0, tags: tuple[str, ...] = ()) -> None:
        vars(self).update(name=name, size=size, tags=tags)


@dataclasses.dataclass
class MutableDataclass:
    path: str
    derived: dict[str, int] = dataclasses.field(default_factory=dict, repr=False, compare=False)


@record(hidden=("derived",))
class MutableRecord:
    path: str
    derived: dict[str, int]

    def __init__(self, path: str, derived: dict[str, int] | None = None) -> None:
        self.path = path
        self.derived = {} if derived is None else derived


@record(frozen=True)
class SlottedRecord:
    __slots__ = ("name", "size")

    name: str
    size: int

    def __init__(self, name: str, size: int = 0) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "size", size)


def _renamed(text: str, old: str, new: str) -> str:
    return text.replace(old, new)


def test_a_frozen_record_shows_compares_and_hashes_as_a_frozen_dataclass():
    made = FrozenDataclass("a", 2, ("x",))
    mine = FrozenRecord("a", 2, ("x",))
    assert repr(mine) == _renamed(repr(made), "FrozenDataclass", "FrozenRecord")
    assert mine == FrozenRecord("a", 2, ("x",)) and mine != FrozenRecord("a", 3, ("x",))
    assert hash(mine) == hash(made) == hash(("a", 2, ("x",)))
    assert (mine == made) is False  # another class: never equal, as dataclasses of two classes
    assert FrozenRecord("a").size == 0


@pytest.mark.parametrize("value", [FrozenRecord("a"), SlottedRecord("a")], ids=["dict", "slots"])
def test_a_frozen_record_refuses_assignment_and_deletion(value):
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'name'"):
        value.name = "b"
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'name'"):
        del value.name
    assert value.name == "a"


def test_a_mutable_record_is_unhashable_and_hidden_fields_are_neither_shown_nor_compared():
    made, mine = MutableDataclass("p"), MutableRecord("p")
    assert repr(mine) == _renamed(repr(made), "MutableDataclass", "MutableRecord") == "MutableRecord(path='p')"
    other = MutableRecord("p", {"k": 1})
    assert mine == other and mine.derived is not MutableRecord("p").derived  # a fresh default each time
    with pytest.raises(TypeError, match="unhashable"):
        hash(mine)
    mine.path = "q"
    assert mine != other


@pytest.mark.parametrize(
    "value",
    [FrozenRecord("a", 1, ("t",)), SlottedRecord("b", 2), MutableRecord("c", {"k": 1})],
    ids=["frozen", "slots", "mutable"],
)
def test_records_pickle_and_copy(value):
    for again in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert type(again) is type(value) and again == value
        assert again.__dict__ == value.__dict__ if hasattr(value, "__dict__") else True


def test_replace_makes_a_changed_copy_through_init():
    value = FrozenRecord("a", 1)
    assert replace(value, size=5) == FrozenRecord("a", 5) and value.size == 1
    assert replace(SlottedRecord("a"), name="b") == SlottedRecord("b")
    with pytest.raises(TypeError):
        replace(value, colour="red")


def test_hidden_must_name_a_field():
    with pytest.raises(TypeError, match="hidden names no field"):

        @record(hidden=("nope",))
        class Broken:
            name: str


def test_finding_and_issue_are_frozen_values_that_pickle():
    finding = Finding("unknown-op", Severity.ERROR, "bad", "g.pbtxt", 3, 1, node="a")
    assert repr(finding) == (
        "Finding(rule='unknown-op', severity=<Severity.ERROR: 3>, message='bad', file='g.pbtxt', line=3, column=1, "
        "node='a', function=None, graph=None)"
    )
    assert pickle.loads(pickle.dumps(finding)) == finding and hash(finding) == hash(copy.copy(finding))
    assert finding.replace(line=4) == Finding("unknown-op", Severity.ERROR, "bad", "g.pbtxt", 4, 1, node="a")
    issue = Issue(None, "message", field="T")
    assert issue == Issue(None, "message", "T") != Issue(None, "message")
    assert pickle.loads(pickle.dumps(issue)) == issue
    for value in (finding, issue):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.message = "changed"


def _record_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(tflint.__path__, "tflint."):
        if info.name == "tflint.__main__":
            continue  # runs the command
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__ and "__record_fields__" in vars(value):
                found.append(value)
    return found


def test_every_record_of_tflint_takes_its_fields_in_order():
    # A field added to the class body but not to __init__ (or the other way round) would be shown and
    # compared without ever being set.
    classes = _record_classes()
    assert len(classes) >= 45
    for cls in classes + [Finding, Issue]:
        fields = cls.__record_fields__ if cls not in (Finding, Issue) else cls.__slots__
        parameters = list(inspect.signature(cls.__init__).parameters)[1:]
        assert parameters == list(fields), cls.__qualname__
        if "__slots__" in vars(cls):
            assert tuple(cls.__slots__) == tuple(fields), cls.__qualname__

"""Records behave as the dataclasses they replace: checked against `@dataclass` twins of the same
classes, then the options one by one."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import pytest

from arazzo_runner.records import FrozenError, Record, field, fields, replace


class Pet(Record):
    name: str
    age: int = 0
    tags: list[str] = field(default_factory=list)
    KIND: ClassVar[str] = "pet"


@dataclasses.dataclass
class PetDC:
    name: str
    age: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)
    KIND: ClassVar[str] = "pet"


class Node(Record, frozen=True):
    text: str = field(default="", kw_only=True)
    parts: tuple[str, ...] = field(default=(), kw_only=True)


class Name(Node):
    value: str
    cache: dict = field(default=None, hash=False, compare=False, repr=False)


@dataclasses.dataclass(frozen=True)
class NodeDC:
    text: str = dataclasses.field(default="", kw_only=True)
    parts: tuple[str, ...] = dataclasses.field(default=(), kw_only=True)


@dataclasses.dataclass(frozen=True)
class NameDC(NodeDC):
    value: str
    cache: dict = dataclasses.field(default=None, hash=False, compare=False, repr=False)


CALLS: list[tuple[tuple, dict]] = [
    (("rex",), {}),
    (("rex", 3), {}),
    (("rex",), {"tags": ["a"]}),
    ((), {"name": "rex", "age": 2}),
    (("rex", 3, ["a"], "extra"), {}),
    ((), {}),
    (("rex",), {"name": "again"}),
    (("rex",), {"colour": "red"}),
]


def _outcome(cls: type, args: tuple, kwargs: dict) -> Any:
    try:
        made = cls(*args, **kwargs)
    except TypeError:
        return TypeError
    return {name: getattr(made, name) for name in ("name", "age", "tags")}


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_init_accepts_and_refuses_what_a_dataclass_does(args, kwargs) -> None:
    assert _outcome(Pet, args, kwargs) == _outcome(PetDC, args, kwargs)


def test_repr_eq_hash_like_dataclasses() -> None:
    assert repr(Pet("rex", 2)) == repr(PetDC("rex", 2)).replace("PetDC", "Pet")
    assert repr(Name("x", text="$x")) == repr(NameDC("x", text="$x")).replace("NameDC", "Name")
    assert Pet("rex") == Pet("rex") and Pet("rex") != Pet("rex", 1)
    assert Pet("rex") != PetDC("rex")  # another class is never equal
    assert Name("x", cache={"a": 1}) == Name("x")  # compare=False
    assert hash(Name("x", cache={"a": 1})) == hash(Name("x"))  # hash=False (a dict would not hash)
    assert hash(Name("x")) != hash(Name("y"))
    with pytest.raises(TypeError):
        hash(Pet("rex"))  # mutable and compared by value: unhashable, as dataclasses
    assert "KIND" not in fields(Pet) and Pet.KIND == "pet"


def test_factories_give_each_instance_its_own_value() -> None:
    first, second = Pet("a"), Pet("b")
    first.tags.append("x")
    assert second.tags == []


def test_keyword_only_fields_follow_the_subclass_positional_ones() -> None:
    assert fields(Name) == ("text", "parts", "value", "cache")
    node = Name("v", text="$v")
    assert (node.value, node.text, node.parts) == ("v", "$v", ())
    with pytest.raises(TypeError):
        Name("v", None, "$v")  # text is keyword-only


def test_frozen_records_refuse_assignment() -> None:
    node = Name("v")
    with pytest.raises(FrozenError):
        node.value = "w"
    with pytest.raises(AttributeError):  # FrozenError is an AttributeError, as FrozenInstanceError
        del node.text
    with pytest.raises(TypeError, match="frozenness"):

        class Thawed(Node, frozen=False):
            pass


def test_post_init_and_init_false() -> None:
    class Step(Record):
        step_id: str
        key: str = field(init=False)

        def __post_init__(self) -> None:
            self.key = self.step_id.upper()

    assert Step("a").key == "A"
    with pytest.raises(TypeError):
        Step("a", key="B")
    assert replace(Step("a"), step_id="b").key == "B"


def test_replace_keeps_the_other_fields() -> None:
    node = Name("v", text="$v", parts=("a",))
    changed = replace(node, value="w")
    assert (changed.value, changed.text, changed.parts) == ("w", "$v", ("a",))
    assert node.value == "v"


def test_definition_errors() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        class Shared(Record):
            items: list = []

    with pytest.raises(TypeError, match="follows a default"):

        class Misordered(Record):
            a: int = 0
            b: int


def _package_records() -> list[type]:
    import importlib

    from tests.modules import module_names

    found = []
    for name in module_names():  # the Locust entry only in a process of its own (tests/modules.py)
        module = importlib.import_module(name)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Record)
            and value is not Record
            and value.__module__ == module.__name__
        ]
    return found


def test_hand_written_inits_take_the_record_fields() -> None:
    """The classes built per step write `__init__` out for speed: its parameters must be the fields, in
    order, with the same defaults (None for a default_factory), or `replace` and readers drift."""
    import inspect

    written = [cls for cls in _package_records() if "__init__" in cls.__dict__]
    assert len(written) >= 10
    for cls in written:
        spec = cls.__record__
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert tuple(p.name for p in parameters) == spec.init_names, cls
        for parameter in parameters:
            expected = spec.defaults.get(parameter.name, None if parameter.name in spec.factories else ...)
            actual = ... if parameter.default is inspect.Parameter.empty else parameter.default
            assert actual == expected, (cls, parameter.name)
            if parameter.name in spec.factories:
                made, fresh = getattr(cls(**_required(cls)), parameter.name), spec.factories[parameter.name]()
                assert type(made) is type(fresh), (cls, parameter.name)
                if type(fresh).__eq__ is not object.__eq__:  # (an OutboundGuard equals only itself)
                    assert made == fresh, (cls, parameter.name)


def _required(cls: type) -> dict:
    spec = cls.__record__
    return {
        name: None for name in spec.init_names if name not in spec.defaults and name not in spec.factories
    }


def test_public_records_copy_with_replace() -> None:
    import arazzo_runner

    options = arazzo_runner.RunOptions(servers={"pets": "http://x"}, timeout=1)
    changed = replace(options, timeout=5)
    assert (changed.timeout, changed.servers) == (5, {"pets": "http://x"})
    assert options.timeout == 1 and changed != options
    assert "timeout" in fields(arazzo_runner.RunOptions)
    assert repr(arazzo_runner.StepResult("s1")).startswith("StepResult(step_id='s1', status='passed'")


def test_a_class_may_write_its_own_hash() -> None:
    class Keyed(Record, frozen=True):
        key: str
        note: str = ""

        def __hash__(self) -> int:
            return hash(self.key)

    assert hash(Keyed("a", "x")) == hash("a")


def test_signatures_show_the_fields() -> None:
    """`inspect.signature` (IDEs, help()) of a record shows its fields as a dataclass's does, not the
    shared `__init__`'s `(*args, **kwargs)`; a class writing its own `__init__` shows that one."""
    import inspect

    import arazzo_runner

    assert str(inspect.signature(Pet)) == str(inspect.signature(PetDC))
    assert (
        str(inspect.signature(Pet)) == "(name: 'str', age: 'int' = 0, tags: 'list[str]' = <factory>) -> None"
    )

    class Base(Record):
        first: int
        flag: bool = field(default=False, kw_only=True)

    class Child(Base):
        second: str = "x"
        hidden: int = field(default=0, init=False)

    assert (
        str(inspect.signature(Child))
        == "(first: 'int', second: 'str' = 'x', *, flag: 'bool' = False) -> None"
    )
    parameters = inspect.signature(arazzo_runner.RunOptions).parameters
    assert list(parameters) == list(fields(arazzo_runner.RunOptions))
    assert parameters["timeout"].default == 30.0
    assert parameters["timeout"].annotation == "float | None"
    assert repr(parameters["servers"].default) == "<factory>"

    class Own(Record):
        value: int

        def __init__(self, value: int, extra: str = "") -> None:
            self.value = value

    assert list(inspect.signature(Own).parameters) == ["value", "extra"]
    assert str(inspect.signature(Record)) == "(*args: 'Any', **kwargs: 'Any') -> 'None'"

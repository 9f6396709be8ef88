"""Records: classes whose `__init__`, `__repr__`, `__eq__` (and `__hash__` when frozen) follow their
annotated fields, as with `@dataclass`, without generating code.

Why not dataclasses: `@dataclass` writes each method as source text and `exec`s it when the module is
imported, 0.15-0.3 ms a class; the ~90 classes on the path of `arazzo run` cost ~25 ms, a seventh of a
one-step run. A record class costs ~10 µs to define; its shared `__init__` costs ~0.5 µs more per
instance, so the few classes built once per step write their own `__init__` (the record still gives
them `__repr__`, `__eq__` and `replace`).

    class Point(Record, frozen=True):
        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)

Supported, with dataclass semantics: defaults, `field(default=, default_factory=, init=, repr=,
compare=, hash=, kw_only=)`, `ClassVar` annotations (not fields), inheritance (base fields first),
`__post_init__`, `frozen=True` (assignment raises `FrozenError`, instances hash by their compared
fields), unhashable mutable records, `replace(record, **changes)`. `inspect.signature(cls)` (help(),
IDEs) shows the fields, as for a dataclass; type checkers read them through `dataclass_transform`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import inspect

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # Python 3.10: only type checkers read it (a version check, which they follow)

    def dataclass_transform(**_: Any) -> Any:
        return lambda decorated: decorated


__all__ = ["FrozenError", "Record", "field", "fields", "replace"]

MISSING: Any = type("MISSING", (), {"__repr__": lambda self: "MISSING"})()


class FrozenError(AttributeError):
    """Assignment to a field of a frozen record."""


class Field:
    __slots__ = ("compare", "default", "factory", "hash", "init", "kw_only", "name", "repr")

    def __init__(self, default: Any, factory: Any, init: bool, repr: bool, compare: bool, hash: bool | None,
                 kw_only: bool) -> None:  # fmt: skip
        if default is not MISSING and factory is not MISSING:
            raise ValueError("a field cannot have both a default and a default_factory")
        self.name = ""
        self.default, self.factory, self.init, self.repr = default, factory, init, repr
        self.compare, self.hash, self.kw_only = compare, compare if hash is None else hash, kw_only


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
    hash: bool | None = None,
    kw_only: bool = False,
) -> Any:
    """A field's options, as `dataclasses.field`."""
    return Field(default, default_factory, init, repr, compare, hash, kw_only)


class _Spec:
    """What the shared methods need of a record class, computed once when the class is defined."""

    __slots__ = (
        "compared",
        "defaults",
        "factories",
        "fields",
        "hashed",
        "init_names",
        "names",
        "positional",
        "post_init",
        "shown",
        "tails",
    )  # fmt: skip

    def __init__(self, fields: dict[str, Field], post_init: bool) -> None:
        self.fields = fields
        self.names = frozenset(name for name, f in fields.items() if f.init)
        self.positional = tuple(name for name, f in fields.items() if f.init and not f.kw_only)
        self.defaults = {name: f.default for name, f in fields.items() if f.default is not MISSING}
        self.factories = {name: f.factory for name, f in fields.items() if f.factory is not MISSING}
        self.init_names = tuple(name for name, f in fields.items() if f.init)
        self.compared = tuple(name for name, f in fields.items() if f.compare)
        self.hashed = tuple(name for name, f in fields.items() if f.hash)
        self.shown = tuple(name for name, f in fields.items() if f.repr)
        self.post_init = post_init
        # for a call with the first n positional fields alone (the usual one): the other fields in
        # order, each (name, True, default) or (name, False, factory), what `_fill` would give them;
        # no entry for an n that leaves a required field without a value (`_fill` raises then)
        self.tails: dict[int, tuple[tuple[str, bool, Any], ...]] = {}
        for given in range(len(self.positional) + 1):
            tail = []
            for name in fields:
                if name in self.positional[:given]:
                    continue
                if name in self.defaults:
                    tail.append((name, True, self.defaults[name]))
                elif name in self.factories:
                    tail.append((name, False, self.factories[name]))
                elif name in self.names:
                    break
            else:
                self.tails[given] = tuple(tail)


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):  # `from __future__ import annotations`
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _class_annotations(cls: type) -> dict[str, Any]:
    """The class's own annotations, in order: `inspect.get_annotations(cls)` without importing `inspect`
    (ast, dis, tokenize: ~10 ms of every command's start, and only `help()` needs a signature)."""
    annotations = cls.__dict__.get("__annotations__")  # noqa: RUF063 (what it reads, without the import)
    if isinstance(annotations, dict):
        return dict(annotations)
    if cls.__dict__.get("__annotate__") is not None:  # Python 3.14+ (PEP 649): annotations made when asked
        import inspect

        return inspect.get_annotations(cls)
    return {}


def _own_fields(cls: type) -> dict[str, Field]:
    fields: dict[str, Field] = {}
    for name, annotation in _class_annotations(cls).items():  # the class's own, in order
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        spec = value if isinstance(value, Field) else Field(value, MISSING, True, True, True, None, False)
        if isinstance(spec.default, (list, dict, set)):
            kind = type(spec.default).__name__
            raise ValueError(f"mutable default {kind} for field {name}: use default_factory")
        spec.name = name
        if isinstance(value, Field):  # the class attribute becomes the default, as with dataclasses
            if spec.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        fields[name] = spec
    return fields


def _check_order(cls: type, fields: dict[str, Field]) -> None:
    seen_default = False
    for name, spec in fields.items():
        if not spec.init or spec.kw_only:
            continue
        has_default = spec.default is not MISSING or spec.factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"{cls.__name__}: non-default field {name!r} follows a default field")
        seen_default = seen_default or has_default


class _Factory:
    """The default shown for a field with a default_factory, as dataclasses show it."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


class _Signature:
    """A record class's `__signature__`, made from its fields when read (not when the class is defined:
    most classes are never inspected). The shared `__init__` takes `*args, **kwargs`; this is
    what `inspect.signature` and IDEs show instead: the fields, their annotations and defaults. A class
    that writes its own `__init__` gets None, so `inspect` reads that `__init__`."""

    def __get__(self, record: object, cls: type[Record]) -> inspect.Signature | None:
        import inspect

        init = next(base.__dict__["__init__"] for base in cls.__mro__ if "__init__" in base.__dict__)
        if init is not Record.__init__ or cls is Record:
            return None
        annotations: dict[str, Any] = {}
        for base in reversed(cls.__mro__):
            if "__record__" in base.__dict__:
                annotations.update(_class_annotations(base))
        parameters = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY if spec.kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=_FACTORY
                if spec.factory is not MISSING
                else (inspect.Parameter.empty if spec.default is MISSING else spec.default),
                annotation=annotations.get(name, inspect.Parameter.empty),
            )
            for name, spec in cls.__record__.fields.items()
            if spec.init
        ]
        parameters.sort(key=lambda parameter: parameter.kind)  # keyword-only ones last (a stable sort)
        return inspect.Signature(parameters, return_annotation=None)


@dataclass_transform(field_specifiers=(field,))
class Record:
    """The base of record classes: `class Name(Record)` or `class Name(Record, frozen=True)`."""

    __record__: ClassVar[_Spec]
    __record_frozen__: ClassVar[bool] = False
    __signature__: ClassVar[Any] = _Signature()

    def __init_subclass__(cls, *, frozen: bool | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: dict[str, Field] = {}
        for base in reversed(cls.__mro__[1:]):
            spec = base.__dict__.get("__record__")
            if spec is not None:
                fields.update(spec.fields)
        fields.update(_own_fields(cls))
        _check_order(cls, fields)
        cls.__record__ = _Spec(fields, hasattr(cls, "__post_init__"))
        if frozen is not None and frozen != cls.__record_frozen__:
            if any("__record__" in base.__dict__ for base in cls.__mro__[1:]):
                raise TypeError(f"{cls.__name__}: a record cannot change the frozenness of its bases")
            cls.__record_frozen__ = frozen
        # Frozen records hash by value; mutable ones compared by value are unhashable (as dataclasses);
        # a class that writes its own __hash__ keeps it.
        if cls.__dict__.get("__hash__") is None:
            cls.__hash__ = _hash if cls.__record_frozen__ else None  # type: ignore[assignment]
        if cls.__record_frozen__:
            cls.__setattr__ = _refuse_set  # type: ignore[method-assign, assignment]
            cls.__delattr__ = _refuse_delete  # type: ignore[method-assign, assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        spec = self.__record__
        if not kwargs:  # the first fields given in order: the others as `_fill` gives them, found once
            tail = spec.tails.get(len(args))
            if tail is not None:
                values = self.__dict__
                values.update(zip(spec.positional, args, strict=False))
                for name, plain, value in tail:
                    values[name] = value if plain else value()
                if spec.post_init:
                    self.__post_init__()  # type: ignore[attr-defined]
                return
        elif not args and spec.names.issuperset(kwargs):  # fields by name alone, all of them known
            if len(kwargs) != len(spec.fields):
                _fill(self, spec, kwargs)
            self.__dict__.update(kwargs)
            if spec.post_init:
                self.__post_init__()  # type: ignore[attr-defined]
            return
        if len(args) > len(spec.positional):
            raise TypeError(f"{type(self).__name__}() takes {len(spec.positional)} positional arguments "
                            f"but {len(args)} were given")  # fmt: skip
        values = dict(zip(spec.positional, args, strict=False))  # trailing fields from kwargs/defaults
        if kwargs:
            for name in kwargs:
                if name in values:
                    raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
                if name not in spec.names:
                    raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
            values.update(kwargs)
        if len(values) != len(spec.fields):
            _fill(self, spec, values)
        self.__dict__.update(values)
        if spec.post_init:
            self.__post_init__()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record__.shown)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = self.__record__.compared
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


def _hash(record: Record) -> int:
    return hash(tuple(getattr(record, name) for name in record.__record__.hashed))


def _refuse_set(record: Record, name: str, value: Any) -> None:
    raise FrozenError(f"cannot assign to field {name!r} of a frozen {type(record).__name__}")


def _refuse_delete(record: Record, name: str) -> None:
    raise FrozenError(f"cannot delete field {name!r} of a frozen {type(record).__name__}")


def _fill(record: Record, spec: _Spec, values: dict[str, Any]) -> None:
    """Defaults and factories for the fields not given; a missing required field is a TypeError."""
    for name in spec.fields:
        if name in values:
            continue
        if name in spec.defaults:
            values[name] = spec.defaults[name]
        elif name in spec.factories:
            values[name] = spec.factories[name]()
        elif name in spec.names:
            raise TypeError(f"{type(record).__name__}() missing required argument: {name!r}")


def fields(record: Record | type[Record]) -> tuple[str, ...]:
    """The names of a record's fields, in order."""
    return tuple(record.__record__.fields)


def replace(record: Any, /, **changes: Any) -> Any:
    """A new record of the same class with some fields changed (`__init__` and `__post_init__` run)."""
    spec = record.__record__
    values = {name: getattr(record, name) for name in spec.init_names if name not in changes}
    return type(record)(**values, **changes)

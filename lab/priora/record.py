"""Records: classes that are their fields, as `dataclasses` makes them, made
at a fraction of the cost.

`@record` (and `@record(frozen=True)`) gives a class an `__init__` taking its
annotated fields in order (a field with a value in the class body, or a
`field(default=...)` / `field(default_factory=...)`, may be left out), a
`__repr__`, an `__eq__` between records of the same class, and, when frozen,
a `__hash__` and no assignment after `__init__`. A record extends the fields
of the records it derives from; `__post_init__`, when defined, runs last in
`__init__`; methods the class defines itself are kept. `fields` and
`replace` are `dataclasses.fields` and `dataclasses.replace` for records.
Type checkers read a record as a dataclass (`dataclass_transform`, PEP 681).

Why not `dataclasses`: it writes each class's methods as source text and
compiles them (about 0.8 ms a frozen class on the machine of
docs/performance.md), and imports `inspect` to do so (about 11 ms). The lab
defines a hundred records, and `priora simulate` would spend more on making
them than on the run. Here the methods are the same few closures for every
record, over the field names: making a record costs one pass over its
annotations; building an instance costs about 1.6 times a dataclass's
(measured side by side: 2.7 against 1.7 us for a frozen four-field class).

The values live in the instance's `__dict__`, in field order, as in a
dataclass: `vars(r)` is the record's fields.

Not supported (the lab needs none): `InitVar`, `ClassVar` fields (an
annotation starting with `ClassVar` is skipped), keyword-only fields, slots,
ordering, per-field `compare`/`repr`/`hash` options.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload

    T = TypeVar("T")
else:

    def dataclass_transform(**_options: object) -> object:  # a no-op at run time
        return lambda decorator: decorator


class FrozenRecordError(AttributeError):
    """An assignment to a field of a frozen record."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """A field of a record: its name, its default (a value, or a factory
    called for each instance), and whether `__init__` takes it (else
    `__post_init__` sets it), `__repr__` shows it and `__eq__`/`__hash__`
    compare it."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | None = None,
        init: bool = True,
        repr: bool = True,  # noqa: A002 - dataclasses' name for it
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not None:
            raise ValueError("a field takes a default or a default_factory, not both")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare

    @property
    def required(self) -> bool:
        return self.init and self.default is MISSING and self.default_factory is None

    @property
    def plain(self) -> bool:
        """Taken by `__init__`, shown and compared: the usual field."""
        return self.init and self.repr and self.compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    init: bool = True,
    repr: bool = True,  # noqa: A002 - dataclasses' name for it
    compare: bool = True,
) -> Any:
    """A field's default and options given apart from its annotation:
    `default_factory` for a mutable default (a list, a dict), made anew for
    each instance; `init=False` for one `__post_init__` sets; `repr=False`,
    `compare=False` for one left out of `__repr__` and of `__eq__` and
    `__hash__` (a cache, say)."""
    return Field(default, default_factory, init, repr, compare)


def fields(record: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order."""
    try:
        return record.__record_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError(f"{record!r} is not a record") from None


def replace(record: T, **changes: Any) -> T:
    """A copy of `record` with the fields named in `changes` changed, made
    by the class's `__init__` (so `__post_init__` runs again)."""
    for name in changes:
        if name not in record.__record_names__:  # type: ignore[attr-defined]
            raise TypeError(f"{type(record).__name__} has no field {name!r}")
    values = {f.name: getattr(record, f.name) for f in fields(record) if f.init}
    values.update(changes)
    return type(record)(**values)


def _own_fields(cls: type) -> list[Field]:
    made = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, MISSING)
        made_field = value if isinstance(value, Field) else Field(value)
        made_field.name = name
        if isinstance(value, Field):  # the class attribute becomes the plain default, or none
            if made_field.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, made_field.default)
        made.append(made_field)
    return made


def _all_fields(cls: type) -> tuple[Field, ...]:
    by_name: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in base.__dict__.get("__record_fields__", ()):
            by_name[inherited.name] = inherited
    for own in _own_fields(cls):
        by_name.pop(own.name, None)  # a redefined field takes its new place, as in dataclasses
        by_name[own.name] = own
    made = tuple(by_name.values())
    for before, after in zip(made, made[1:], strict=False):
        if not before.required and after.required:
            raise TypeError(
                f"{cls.__name__}: field {after.name!r} without a default follows one with a default"
            )
    return made


_UNSET: Any = object()  # a field's place in bind() before its value is known


def _make_init(cls: type, made: tuple[Field, ...]) -> Callable[..., None]:
    # Fields __init__ does not take, but sets to their default (a cache, say).
    preset = tuple(f for f in made if not f.init and f.default is not MISSING)
    made_anew = tuple(f for f in made if not f.init and f.default_factory is not None)
    made = tuple(f for f in made if f.init)
    names = tuple(f.name for f in made)
    count = len(names)
    # Per position: the plain default, or _UNSET for a field that has none
    # or whose default is made by a factory.
    defaults = tuple(f.default if f.default is not MISSING else _UNSET for f in made)
    post_init = getattr(cls, "__post_init__", None)

    # The positions whose default is _UNSET: the only ones bind() must look at
    # after taking the values (a required field, or a factory's).
    unset = tuple(i for i, d in enumerate(defaults) if d is _UNSET)

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        given = len(args)
        if given > count:
            raise TypeError(f"{cls.__name__}() takes {count} fields, {given} given")
        if kwargs:  # each later field from kwargs, else its default: in C, by map
            values = [*args, *map(kwargs.pop, names[given:], defaults[given:])]
            if kwargs:
                name = next(iter(kwargs))
                problem = f"field {name!r} twice" if name in names else f"no field {name!r}"
                raise TypeError(f"{cls.__name__}() got {problem}")
        else:
            values = [*args, *defaults[given:]]
        for i in unset:
            if i >= given and values[i] is _UNSET:
                factory = made[i].default_factory
                if factory is None:
                    raise TypeError(f"{cls.__name__}() missing field {names[i]!r}")
                values[i] = factory()
        return values

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # Every field given by position, the common case, is bound at once.
        bound = args if not kwargs and len(args) == count else bind(args, kwargs)
        self.__dict__.update(zip(names, bound, strict=False))  # both are `count` long

    if not (preset or made_anew or post_init is not None):
        return __init__

    def full_init(self: Any, *args: Any, **kwargs: Any) -> None:  # the fields, then the rest
        __init__(self, *args, **kwargs)
        for f in preset:
            self.__dict__[f.name] = f.default
        for f in made_anew:
            self.__dict__[f.name] = f.default_factory()  # type: ignore[misc]
        if post_init is not None:
            post_init(self)

    return full_init


# The methods of a record whose fields are all plain (Field.plain): its
# __dict__ is its fields, in order.


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> object:  # NotImplemented, or a bool
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(tuple(self.__dict__.values()) == tuple(other.__dict__.values()))


def _hash(self: Any) -> int:
    return hash(tuple(self.__dict__.values()))


# The same for a record with fields left out of __repr__ or of the comparisons.


def _methods_by_name(made: tuple[Field, ...]) -> tuple[Callable[..., Any], ...]:
    shown = tuple(f.name for f in made if f.repr)
    compared = tuple(f.name for f in made if f.compare)

    def __repr__(self: Any) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({values})"

    def key(self: Any) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in compared)

    def __eq__(self: Any, other: object) -> object:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(key(self) == key(other))

    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __repr__, __eq__, __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def _make(cls: type, frozen: bool) -> type:
    made = _all_fields(cls)
    own = cls.__dict__
    cls.__record_fields__ = made  # type: ignore[attr-defined]
    cls.__record_names__ = frozenset(f.name for f in made)  # type: ignore[attr-defined]
    cls.__match_args__ = tuple(f.name for f in made)  # type: ignore[attr-defined,misc]
    repr_, eq, hash_ = (_repr, _eq, _hash) if all(f.plain for f in made) else _methods_by_name(made)
    if "__init__" not in own:
        cls.__init__ = _make_init(cls, made)  # type: ignore[misc]
    if "__repr__" not in own:
        cls.__repr__ = repr_  # type: ignore[assignment]
    if "__eq__" not in own:
        cls.__eq__ = eq  # type: ignore[assignment]
        if frozen:
            cls.__hash__ = hash_  # type: ignore[assignment]
        elif "__hash__" not in own:
            cls.__hash__ = None  # type: ignore[assignment]  # equal by value and mutable: unhashable
    if frozen:
        cls.__setattr__ = _frozen_setattr  # type: ignore[assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[assignment]
    return cls


if TYPE_CHECKING:

    @overload
    @dataclass_transform(field_specifiers=(field,))
    def record(cls: type[T], /) -> type[T]: ...

    @overload
    @dataclass_transform(field_specifiers=(field,))
    def record(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field,))
def record(cls: Any = None, /, *, frozen: bool = False) -> Any:
    """Makes `cls` a record (see the module's text); `@record(frozen=True)`
    for one that cannot change after `__init__`."""
    if cls is None:
        return lambda undecorated: _make(undecorated, frozen)
    return _make(cls, frozen)

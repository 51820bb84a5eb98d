"""priora.record: what a record's __init__, __repr__, __eq__, __hash__,
frozenness, fields() and replace() do, as dataclasses do them (the lab's
records replaced dataclasses: docs/performance.md, "CLI start-up")."""

from __future__ import annotations

import dataclasses

import pytest

from priora.record import FrozenRecordError, field, fields, record, replace


@record
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)


@record(frozen=True)
class Frozen:
    name: str
    size: int = 1


@record
class Derived(Point):
    z: int = 5


@record
class WithPostInit:
    a: int
    doubled: int = field(default=0, init=False)
    cache: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.doubled = 2 * self.a


def test_init_by_position_by_name_and_mixed() -> None:
    assert vars(Point(1, 2, ["t"])) == {"x": 1, "y": 2, "tags": ["t"]}
    assert vars(Point(x=1)) == {"x": 1, "y": 0, "tags": []}
    assert vars(Point(1, tags=["a"])) == {"x": 1, "y": 0, "tags": ["a"]}
    assert vars(Point(y=3, x=4)) == {"x": 4, "y": 3, "tags": []}  # the fields' order, not the call's


def test_a_factory_makes_a_new_value_for_each_instance() -> None:
    a, b = Point(1), Point(2)
    a.tags.append("a")
    assert (a.tags, b.tags) == (["a"], [])


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Point(), "Point() missing field 'x'"),
        (lambda: Point(y=1), "Point() missing field 'x'"),
        (lambda: Point(1, 2, [], 4), "Point() takes 3 fields, 4 given"),
        (lambda: Point(1, x=2), "Point() got field 'x' twice"),
        (lambda: Point(1, w=2), "Point() got no field 'w'"),
        (lambda: Frozen(), "Frozen() missing field 'name'"),
    ],
)
def test_bad_calls_name_the_field(make: object, message: str) -> None:
    with pytest.raises(TypeError) as error:
        make()  # type: ignore[operator]
    assert str(error.value) == message


def test_repr_eq_and_hash() -> None:
    assert repr(Point(1)) == "Point(x=1, y=0, tags=[])"
    assert Point(1) == Point(1, 0, []) and Point(1) != Point(2)
    assert Point(1) != Derived(1)  # another class: never equal
    with pytest.raises(TypeError):
        hash(Point(1))  # equal by value and mutable: unhashable, as a dataclass
    assert hash(Frozen("a")) == hash(Frozen("a", 1)) and {Frozen("a"), Frozen("a")} == {Frozen("a")}


def test_frozen_refuses_assignment_and_deletion() -> None:
    f = Frozen("a")
    with pytest.raises(FrozenRecordError) as error:
        f.size = 2  # type: ignore[misc]
    assert str(error.value) == "cannot assign to field 'size' of a frozen Frozen"
    with pytest.raises(FrozenRecordError):
        del f.name  # type: ignore[misc]
    assert isinstance(error.value, AttributeError)  # as dataclasses.FrozenInstanceError is


def test_a_derived_record_extends_its_bases_fields() -> None:
    assert [f.name for f in fields(Derived)] == ["x", "y", "tags", "z"]
    assert vars(Derived(1, z=9)) == {"x": 1, "y": 0, "tags": [], "z": 9}


def test_post_init_and_fields_left_out_of_init_repr_and_comparisons() -> None:
    w = WithPostInit(3)
    assert (w.doubled, w.cache) == (6, {})
    w.cache["k"] = 1
    assert w == WithPostInit(3)  # the cache is not compared
    assert repr(w) == "WithPostInit(a=3, doubled=6)"
    with pytest.raises(TypeError) as error:
        WithPostInit(3, 4)  # type: ignore[call-arg]
    assert str(error.value) == "WithPostInit() takes 1 fields, 2 given"


def test_replace_makes_a_new_record_through_init() -> None:
    f = Frozen("a")
    g = replace(f, size=3)
    assert (f, g) == (Frozen("a", 1), Frozen("a", 3))
    assert replace(WithPostInit(1), a=5).doubled == 10  # __post_init__ ran again
    with pytest.raises(TypeError) as error:
        replace(f, colour="red")
    assert str(error.value) == "Frozen has no field 'colour'"


def test_the_same_as_a_dataclass() -> None:
    @dataclasses.dataclass
    class Twin:
        x: int
        y: int = 0
        tags: list[str] = dataclasses.field(default_factory=list)

    for args, kwargs in (((1,), {}), ((1, 2), {}), ((), {"x": 1, "tags": ["t"]}), ((1,), {"y": 7})):
        assert vars(Point(*args, **kwargs)) == vars(Twin(*args, **kwargs))

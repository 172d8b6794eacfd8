"""How a Dataview function picks its implementation: typed variants tried in order, lists given
where single values are expected applied element by element ("vectorised"), as Dataview's
`FunctionBuilder` does (blacksmithgu/obsidian-dataview, MIT: src/expression/functions.ts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbtui.dataview.values import EvalError, type_of

Impl = Callable[..., Any]


class Builder:
    """One function: typed variants tried in order, and the argument counts at which list
    arguments (in the given positions) are applied element by element."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.variants: list[tuple[tuple[str, ...] | None, Impl]] = []
        self.vector: dict[int, tuple[int, ...]] = {}

    def add(self, *types: str) -> Callable[[Impl], Impl]:
        def register(impl: Impl) -> Impl:
            self.variants.append((types, impl))
            return impl

        return register

    def vararg(self, impl: Impl) -> Impl:
        self.variants.append((None, impl))
        return impl

    def vectorise(self, count: int, *positions: int) -> Builder:
        self.vector[count] = positions
        return self

    def __call__(self, *args: Any) -> Any:
        types = [type_of(a) for a in args]
        positions = [p for p in self.vector.get(len(args), ()) if types[p] == "array"]
        if positions:
            length = min(len(args[p]) for p in positions)
            return [
                self(*[a[i] if n in positions else a for n, a in enumerate(args)])
                for i in range(length)
            ]
        for wanted, impl in self.variants:
            if wanted is None:
                return impl(*args)
            if len(wanted) == len(types) and all(
                w in ("*", t) for w, t in zip(wanted, types, strict=True)
            ):
                return impl(*args)
        shown = ", ".join(types)
        raise EvalError(f"No implementation of '{self.name}' found for arguments: {shown}")


def _same(value: Any) -> Any:
    return value


def _null(*_: Any) -> None:
    return None


def one(name: str, kind: str, impl: Impl, null: bool = True) -> Builder:
    """A function of one argument of `kind` (null gives null), applied to each of a list."""
    f = Builder(name)
    f.add(kind)(impl)
    if null:
        f.add("null")(_null)
    return f.vectorise(1, 0)

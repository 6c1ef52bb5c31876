"""Lazy package exports, so that ``import nbayes.spam`` or the ``nbayes spam classify``
command does not pay for importing scikit-learn and every estimator.

A mail server runs ``nbayes spam classify`` once per delivered message; importing the
whole library (scikit-learn included) took about 1 s of CPU a call, where the spam
filter itself needs only the standard library and NumPy.
"""

from __future__ import annotations

import sys
import types

# ``typing`` costs a mail server's ``nbayes spam classify`` about 3 ms a message: its
# names are read by static tools only (``TYPE_CHECKING`` is their convention for it).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


class _LazyPackage(types.ModuleType):
    """A package whose public names are imported from their modules on first access.

    Importing a submodule binds it on its package (``nbayes.merge`` the module); where a
    public name is also a submodule's name, that binding is refused, so the name keeps
    meaning the exported object (the function ``nbayes.merge``), as with eager imports.
    """

    _exports: Mapping[str, str]

    def __getattr__(self, name: str) -> Any:
        module = self._exports.get(name)
        if module is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        __import__(module)  # importlib.import_module without importing importlib
        value = getattr(sys.modules[module], name)
        super().__setattr__(name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        submodule = isinstance(value, types.ModuleType) and value.__name__.endswith(f".{name}")
        if submodule and name in self._exports:
            return
        super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._exports))


def lazy_exports(package: str, exports: Mapping[str, str]) -> None:
    """Make ``package`` (a package, or any module) import each public ``name`` from
    module ``exports[name]`` (an absolute module name) on first access, and cache it in
    the package's namespace."""
    module = sys.modules[package]
    module.__class__ = _LazyPackage
    types.ModuleType.__setattr__(module, "_exports", dict(exports))


class LazyPattern:
    """A regular expression compiled on its first use, standing in for ``re.compile(pattern,
    flags)``: ``findall``, ``match``, ``search``... are the compiled pattern's own,
    bound on first access (later accesses are plain attribute reads).

    ``nbayes spam classify`` runs once per delivered message, and compiling a pattern
    costs 0.05-0.4 ms; most mail (one plain ASCII part) needs only some of the spam
    reader's patterns, so the others wait until a message needs them.

    >>> word = LazyPattern(r"[a-z]+")
    >>> word.findall("two words")
    ['two', 'words']
    >>> word.pattern
    '[a-z]+'
    """

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        import re  # compiled again for each attribute's first access: re's cache finds it

        if name.startswith("_"):  # not a pattern's (copy, pickle), nor _source itself
            raise AttributeError(name)
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r}, {self._source[1]})"

"""NumPy for the spam modules, imported on first use.

``nbayes spam classify`` runs once per delivered message, and importing NumPy took
70 of its 150 ms; the one message it scores needs none (:mod:`nbayes.spam.single`).
The modules it imports (the scoring settings, the store) reach NumPy through ``np``
here, which imports it at the first attribute asked for.
"""

from __future__ import annotations

import sys
from types import ModuleType

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from typing import Any


class _OnFirstUse:
    """A stand-in for a module, importing it when an attribute is first asked for."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            __import__(self._name)  # importlib.import_module, importlib unimported
            self._module = sys.modules[self._name]
        return getattr(self._module, attribute)


np: Any = _OnFirstUse("numpy")

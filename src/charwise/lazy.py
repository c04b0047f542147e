"""Names a package loads on first use (PEP 562), so that importing it stays cheap: :func:`lazy_names`.

Example (a package's ``__init__.py``)::

    __getattr__, __dir__ = lazy_names(__name__, globals(), {"Speller": "charwise.speller"})
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_names(package: str, namespace: dict[str, Any],
               table: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: a name of ``table`` (name -> the module that
    defines it) is imported on first use and kept in ``namespace`` (the package's globals), so later
    look-ups skip the hook."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *table})

    return __getattr__, __dir__

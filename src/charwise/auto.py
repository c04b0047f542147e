"""charwise's model types in transformers' ``AutoConfig`` / ``AutoModel``, without slowing ``import charwise``.

Every charwise ``PreTrainedModel`` registers itself (``AutoConfig.register`` / ``AutoModel.register``)
when the module that defines it is imported, but those modules import torch and transformers, which
``import charwise`` must not do (it takes milliseconds, not seconds). So ``import charwise`` calls
:func:`install`, which imports nothing heavy:

* if transformers' ``configuration_auto`` module is already loaded, the charwise model types go into
  its ``CONFIG_MAPPING`` at once, as *pending* entries (model type -> the charwise module that
  defines it);
* otherwise a small finder on ``sys.meta_path`` waits for that module to be imported (by
  ``transformers.AutoConfig``, ``AutoModel``, ``pipeline`` ...) and adds the pending entries right
  after it has run, then takes itself off ``sys.meta_path``.

The first time transformers looks a charwise model type up (``AutoConfig.from_pretrained`` of a
directory whose ``config.json`` says ``"model_type": "charwise-encoder"``, ...), the pending entry
imports the module of :data:`MODEL_TYPES`, which registers its config with ``AutoConfig`` and its
model with ``AutoModel``. So, in a fresh interpreter, in either import order::

    import charwise, transformers
    transformers.AutoModel.from_pretrained("path/to/encoder")     # a charwise.CharEncoder

:func:`register` does the same eagerly (it imports torch and every charwise model module), for
code that lists ``CONFIG_MAPPING`` or needs the classes registered up front.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: model type -> the module that defines its config and model classes and registers them on import
MODEL_TYPES = {
    "charwise-encoder": "charwise.encoders.base",  # its registry imports every encoder kind on first look-up
    "charwise-decoder": "charwise.decoders.lstm",
    "charwise-char-lm": "charwise.lm.model",
    "charwise-translation": "charwise.translation.model",
    "charwise-word-head": "charwise.hybrid.generation",
    "charwise-speller": "charwise.speller.scorer",
}

#: the transformers module that holds ``CONFIG_MAPPING`` (what ``AutoConfig`` looks model types up in)
CONFIGURATION_AUTO = "transformers.models.auto.configuration_auto"


def register() -> None:
    """Register every charwise model type with ``AutoConfig`` / ``AutoModel`` now (imports torch)."""
    for module in MODEL_TYPES.values():
        importlib.import_module(module)


class _PendingEntries(dict[str, Any]):
    """``CONFIG_MAPPING._extra_content`` (model type -> registered config class) that also knows the
    charwise model types not registered yet: looking one up imports its module, which registers it.

    ``keys()``, ``in`` and ``[]`` see the pending types; ``items()`` / ``values()`` only the classes
    registered so far (transformers uses them to find the model type of a class, and a pending
    type's class does not exist yet)."""

    def __init__(self, registered: dict[str, Any], pending: dict[str, str]) -> None:
        super().__init__(registered)
        self.pending: dict[str, str] = {}
        self.add(pending)

    def registered(self, key: object) -> bool:
        """Whether ``key``'s class is registered (not merely pending)."""
        return super().__contains__(key)

    def add(self, pending: dict[str, str]) -> None:
        """Model types -> modules, for the types not registered yet."""
        self.pending.update({k: v for k, v in pending.items() if not self.registered(k)})

    def __contains__(self, key: object) -> bool:
        return self.registered(key) or key in self.pending

    def __getitem__(self, key: str) -> type:
        module = None if self.registered(key) else self.pending.pop(key, None)
        if module is not None:
            try:
                importlib.import_module(module)  # its AutoConfig.register(...) fills this entry
            except BaseException:
                self.pending[key] = module  # a later look-up tries again (and shows the error again)
                raise
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __setitem__(self, key: str, value: type) -> None:
        self.pending.pop(key, None)
        super().__setitem__(key, value)

    def keys(self) -> list[str]:  # type: ignore[override]
        return [*super().keys(), *(k for k in self.pending if not self.registered(k))]


def _add_pending(configuration_auto: ModuleType) -> bool:
    """Add the charwise model types to ``configuration_auto.CONFIG_MAPPING`` (imports nothing);
    False when that mapping is not the one this code knows (another transformers version)."""
    mapping = getattr(configuration_auto, "CONFIG_MAPPING", None)
    registered = getattr(mapping, "_extra_content", None)
    if not isinstance(registered, dict):
        return False
    if isinstance(registered, _PendingEntries):
        registered.add(MODEL_TYPES)
    else:
        mapping._extra_content = _PendingEntries(registered, MODEL_TYPES)  # type: ignore[union-attr]
    return True


class _AfterImport:
    """A ``sys.meta_path`` finder that runs :func:`_add_pending` right after transformers'
    ``configuration_auto`` module has been executed (a post-import hook; it finds nothing itself)."""

    charwise_auto_hook = True  # how install() and the finders recognise one (a reloaded module's too)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != CONFIGURATION_AUTO:
            return None
        for finder in sys.meta_path:  # the finder that really has the module
            find = None if _is_hook(finder) else getattr(finder, "find_spec", None)
            spec = None if find is None else find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader: Any = spec.loader
        execute = getattr(loader, "exec_module", None)
        if execute is None or isinstance(loader, type):  # nothing to wrap (or a class shared by many modules)
            return spec

        def exec_module(module: ModuleType) -> None:
            execute(module)
            if getattr(module, "__name__", None) == CONFIGURATION_AUTO:
                _uninstall_finder()
                if not _add_pending(module):
                    import warnings

                    warnings.warn("charwise cannot add its model types to this transformers version's AutoConfig; "
                                  "call charwise.auto.register() before loading charwise models with it", stacklevel=2)

        loader.exec_module = exec_module  # this loader instance is this module's only
        return spec


def _is_hook(finder: object) -> bool:
    return getattr(finder, "charwise_auto_hook", False) is True


def _uninstall_finder() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not _is_hook(f)]


def install() -> None:
    """Make transformers' Auto classes know every charwise model type (see the module's docstring);
    imports neither torch nor transformers. Called by ``import charwise``; calling it again is harmless."""
    module = sys.modules.get(CONFIGURATION_AUTO)
    if module is not None and getattr(module, "CONFIG_MAPPING", None) is not None:
        if not _add_pending(module):
            register()  # an unknown mapping: register the classes themselves (transformers is loaded anyway)
        return
    if not any(_is_hook(f) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())

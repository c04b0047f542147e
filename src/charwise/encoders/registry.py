"""The encoder kinds by name: :data:`ENCODERS` (``"cnn"`` -> :class:`~charwise.encoders.cnn.CNNEncoder`, ...).

Each kind's module registers its class with :func:`register` when it is imported. The interface
(:mod:`charwise.encoders.base`) looks kinds up here but never imports its subclasses (they import
it): the first time anyone reads :data:`ENCODERS`, the registry imports the built-in kinds' modules
(:data:`BUILTIN_KINDS`), so ``CharEncoder.from_pretrained`` and ``build_encoder`` reach every kind
whichever module was imported first. This module imports neither torch nor any encoder itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from charwise.encoders.base import CharEncoder

#: built-in kind -> the module that defines and registers it
BUILTIN_KINDS = {
    "cnn": "charwise.encoders.cnn",
    "transformer": "charwise.encoders.transformer",
    "bilstm": "charwise.encoders.bilstm",
}

EncoderClass = TypeVar("EncoderClass", bound="type[CharEncoder]")


class EncoderRegistry(Mapping[str, "type[CharEncoder]"]):
    """Kind name -> encoder class; reading it first imports the modules of ``builtin`` (kind ->
    module), whose classes register themselves with :meth:`add`."""

    def __init__(self, builtin: Mapping[str, str]) -> None:
        self._builtin = dict(builtin)
        self._classes: dict[str, type[CharEncoder]] = {}
        self._complete = False
        self._loading = False  # a kind's module being imported may read the registry: no recursion

    def add(self, name: str, cls: type[CharEncoder]) -> None:
        """Register ``cls`` as kind ``name`` (a later class of the same name replaces it)."""
        self._classes[name] = cls

    def _loaded(self) -> dict[str, type[CharEncoder]]:
        if not self._complete and not self._loading:
            self._loading = True
            try:
                for module in self._builtin.values():
                    importlib.import_module(module)
                self._complete = True
            finally:
                self._loading = False
        return self._classes

    def __getitem__(self, name: str) -> type[CharEncoder]:
        return self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __repr__(self) -> str:
        return f"EncoderRegistry({sorted(self._loaded())})"


#: every encoder kind by name (``encoder_type`` in a saved config)
ENCODERS = EncoderRegistry(BUILTIN_KINDS)


def register(name: str) -> Callable[[EncoderClass], EncoderClass]:
    """Class decorator adding an encoder to :data:`ENCODERS` under ``name`` (and setting its ``kind``)."""

    def wrap(cls: EncoderClass) -> EncoderClass:
        cls.kind = name
        ENCODERS.add(name, cls)
        return cls

    return wrap

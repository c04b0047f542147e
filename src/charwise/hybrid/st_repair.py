"""Spelling repair in front of any ``SentenceTransformer``: :func:`repairing` and :class:`RepairInput`.

:func:`repairing` returns a copy of a sentence-transformers model whose first module is wrapped in
:class:`RepairInput`: each text is passed through :func:`charwise.repair` (only the words the
speller of ``language`` is confident are misspelled change; every other character stays as
written) and then preprocessed by the wrapped module as before. The weights are shared with the
original model, nothing else about it changes, and a text without a confident misspelling gives
exactly the vector the original model gives::

    from sentence_transformers import SentenceTransformer
    from charwise.hybrid.st_repair import repairing

    model = repairing(SentenceTransformer("all-MiniLM-L6-v2"), "en")
    model.encode(["I recieved the pakage"])   # the vector of "I received the package"
    model[0].last_repairs[0].corrected        # 'I received the package'

What was repaired: after ``model.encode(texts)``, ``model[0].last_repairs[i]`` is the
:class:`~charwise.speller.CorrectedText` of ``texts[i]``, in the order of ``texts`` (the model
:func:`repairing` returns records them by text while sentence-transformers encodes them longest
first, in batches, and puts them back in order at the end of the call). A model loaded from disk is
a plain ``SentenceTransformer``, which says nothing of its inputs' order to its first module: there
``last_repairs`` is the last batch, in sentence-transformers' (longest first) order.

What is repaired: text inputs (strings, and the strings of text pairs); a prompt (``prompt=`` or
``prompt_name=``, e.g. e5's ``"query: "``) is handed to the wrapped module as it is, never repaired.
Other inputs (images, chat messages, dicts) pass through untouched. With sentence-transformers < 6,
which prepends the prompt to the text before preprocessing, the prompt is read by the speller too
(a prompt of known words is left as it is).

Saving: ``model.save(path)`` writes the wrapped module with its own ``save`` into
``0_RepairInput/inner/`` and the repair settings in ``0_RepairInput/charwise_repair.json``; no
pickle. Since sentence-transformers 6 a saved model whose modules come from another package loads
with ``SentenceTransformer(path, trust_remote_code=True)`` (the class is imported from the installed
charwise; no code is read from the directory). :meth:`RepairInput.load` itself imports only wrapped
classes of the ``sentence_transformers`` and ``charwise`` packages.

sentence-transformers is optional (``pip install charwise[st]``): this module imports without it.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path
from typing import Any, Sequence

from torch import nn

from charwise.errors import CheckpointError, ConfigError
from charwise.hybrid.st import INSTALL_HINT, _require_sentence_transformers, read_module_config
from charwise.languages import check_language
from charwise.speller.corrections import CorrectedText
from charwise.speller.repair import repair
from charwise.speller.settings import check_threshold

__all__ = ["RepairInput", "repairing"]

CONFIG_NAME = "charwise_repair.json"
FORMAT = "charwise-repair-input"
FORMAT_VERSION = 1
INNER_DIR = "inner"
# Wrapped classes are imported by name on load: only from these packages (no arbitrary imports).
TRUSTED_PACKAGES = ("sentence_transformers", "charwise")
_DOTTED_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
# Keywords sentence-transformers passes to RepairInput.load that are meant for RepairInput itself.
_OWN_LOAD_KWARGS = ("init_defaults", "module_classes")


def _with_prompt(inputs: list[Any], prompt: str | None) -> list[Any]:
    """``prompt`` prepended to every text (the first text of a pair), as sentence-transformers does
    for a first module whose ``preprocess`` takes no prompt."""
    if not prompt:
        return inputs
    return [prompt + item if isinstance(item, str)
            else (prompt + item[0], *item[1:]) if isinstance(item, tuple) and item and isinstance(item[0], str)
            else item for item in inputs]


def _text_places(items: list[Any]) -> list[tuple[int, int | None]]:
    """Where the texts of ``items`` are: ``(item, None)`` for a string, ``(item, k)`` for the
    ``k``-th string of a tuple (a text pair)."""
    where: list[tuple[int, int | None]] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            where.append((i, None))
        elif isinstance(item, tuple):
            where.extend((i, k) for k, part in enumerate(item) if isinstance(part, str))
    return where


def _class_ref(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _trusted_class(ref: Any, error: type[Exception] = CheckpointError) -> Any:
    """The ``nn.Module`` class named ``ref`` (``package.module.Class``), if it is in a trusted package."""
    if not isinstance(ref, str) or not _DOTTED_NAME.match(ref) or ref.split(".")[0] not in TRUSTED_PACKAGES:
        raise error(f"refusing wrapped module class {ref!r}: only classes of the "
                    f"{' or '.join(TRUSTED_PACKAGES)} packages are loaded")
    parts = ref.split(".")
    for cut in range(len(parts) - 1, 0, -1):  # the longest importable module prefix, then attributes
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            break
        if isinstance(obj, type) and issubclass(obj, nn.Module) and callable(getattr(obj, "load", None)):
            return obj
        break
    raise error(f"wrapped module class {ref!r} is not an importable sentence-transformers module class")


def _module_directory(model_name_or_path: str, subfolder: str, hub: dict[str, Any]) -> Path:
    """The local directory of a saved module: a folder on disk, else fetched by sentence-transformers."""
    local = Path(model_name_or_path) / subfolder
    if local.is_dir():
        return local
    try:
        from sentence_transformers.util import load_dir_path
    except ImportError:  # only a local directory can be read without sentence-transformers
        raise CheckpointError(f"'{local}' is not a directory ({INSTALL_HINT} to fetch models)") from None
    found = load_dir_path(model_name_or_path=model_name_or_path, subfolder=subfolder, **hub)
    if found is None:
        raise CheckpointError(f"'{local}' is not a saved RepairInput (not found)")
    return Path(found)


class RepairInput(nn.Module):
    """A sentence-transformers input module that repairs misspelled words, then runs ``inner``.

    Args:
        inner: the model's input module (``Transformer``, ``StaticEmbedding``, ``WordEmbeddings``,
            :class:`~charwise.hybrid.st.CharwiseHybrid`...); its weights are used, not copied.
        language: the speller's language, ``"en"`` or ``"es"``.
        threshold: the probability of a misspelling at which a word is changed; ``None``: the
            speller's own tuned threshold.

    :attr:`last_repairs` holds the :class:`~charwise.speller.CorrectedText` of each text (what
    changed, with offsets), e.g. to log what the model actually read: after ``encode`` on a model
    built by :func:`repairing`, of every text of the call, in the order of its inputs; after a direct
    :meth:`preprocess`, of the texts it was given, in their order.
    """

    save_in_root = False  # sentence-transformers: its own subfolder (the inner module may use the root)

    def __init__(self, inner: nn.Module, language: str = "en", *, threshold: float | None = None) -> None:
        super().__init__()
        if not isinstance(inner, nn.Module):
            raise TypeError(f"RepairInput wraps a torch module, got {type(inner).__name__}")
        if isinstance(inner, RepairInput):
            raise ConfigError("this module already repairs its inputs (it is a RepairInput)")
        if not callable(getattr(inner, "preprocess", None)) and not callable(getattr(inner, "tokenize", None)):
            raise ConfigError(f"{type(inner).__name__} is not a sentence-transformers input module "
                              "(it has neither preprocess nor tokenize)")
        self.language = check_language(language)
        self.threshold = check_threshold(threshold, "repair threshold")
        self.inner: Any = inner  # Any: the inner module's own attributes are read (tokenizer, ...)
        self.last_repairs: list[CorrectedText] = []
        self._recorded: dict[str, CorrectedText] | None = None  # during an encode call: repairs by text

    # --- the repair ---------------------------------------------------------------------------
    def repair_inputs(self, inputs: Sequence[Any]) -> list[Any]:
        """``inputs`` with each text repaired (also the texts of pairs); other inputs as they are.
        Sets :attr:`last_repairs`."""
        if isinstance(inputs, str):
            raise TypeError("preprocess() takes a list of inputs, not a single string")
        items = list(inputs)
        where = _text_places(items)
        texts = [items[i] if j is None else items[i][j] for i, j in where]
        # No texts, no speller: a batch of images never loads it.
        self.last_repairs = repair(texts, self.language, threshold=self.threshold) if texts else []
        if self._recorded is not None:
            self._recorded.update(zip(texts, self.last_repairs))
        for (i, j), fixed in zip(where, self.last_repairs):
            corrected = fixed.corrected
            if corrected == fixed.text:
                continue
            if j is None:
                items[i] = corrected
            else:
                parts = list(items[i])
                parts[j] = corrected
                items[i] = tuple(parts)
        return items

    def _start_call(self) -> None:
        """An ``encode`` call begins: record the repairs of its batches by text."""
        self._recorded = {}

    def _end_call(self, inputs: Any, prompts: Sequence[str] = ()) -> None:
        """The ``encode`` call of ``inputs`` ended: :attr:`last_repairs` in the order of the inputs.
        A text is looked up as given, else with one of ``prompts`` before it (sentence-transformers
        < 6 prepends the prompt before preprocessing); if one is missing (not a list of inputs,
        encoded elsewhere), the last batch's repairs are left as they are."""
        recorded, self._recorded = self._recorded, None
        if recorded is None or inputs is None:
            return
        items: list[Any] = [inputs] if isinstance(inputs, (str, dict)) else list(inputs)
        ordered = []
        for i, j in _text_places(items):
            text: str = items[i] if j is None else items[i][j]
            found = recorded.get(text)
            for prompt in prompts:
                if found is not None:
                    break
                found = recorded.get(prompt + text)
            if found is None:
                return
            ordered.append(found)
        self.last_repairs = ordered

    # --- what sentence-transformers asks of an input module -----------------------------------
    def preprocess(self, inputs: Sequence[Any], prompt: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """Repair the texts, then the inner module's ``preprocess`` with the prompt as given.

        Falls back as ``SentenceTransformer.preprocess`` does: without ``prompt`` (prepended to the
        repaired texts) when the inner ``preprocess`` does not take it, and to ``tokenize`` when the
        inner module has no ``preprocess``.
        """
        repaired = self.repair_inputs(inputs)
        inner_preprocess = getattr(self.inner, "preprocess", None)
        if callable(inner_preprocess):
            try:
                return inner_preprocess(repaired, prompt=prompt, **kwargs)
            except TypeError:
                return inner_preprocess(_with_prompt(repaired, prompt), **kwargs)
        texts = _with_prompt(repaired, prompt)
        try:
            return self.inner.tokenize(texts, **kwargs)
        except TypeError:
            return self.inner.tokenize(texts)

    def tokenize(self, texts: Sequence[Any], **kwargs: Any) -> dict[str, Any]:
        """The name sentence-transformers < 6 uses for :meth:`preprocess`."""
        return self.preprocess(texts, **kwargs)

    def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The inner module's ``forward`` (the features are already those of the repaired texts)."""
        return self.inner(features, **kwargs)

    @property
    def forward_kwargs(self) -> set[str]:
        """The keywords sentence-transformers passes on to :meth:`forward` (the inner module's)."""
        return set(getattr(self.inner, "forward_kwargs", ()))

    @property
    def modalities(self) -> list[Any]:
        return list(getattr(self.inner, "modalities", ["text"]))

    @property
    def tokenizer(self) -> Any:
        return self.inner.tokenizer

    @tokenizer.setter
    def tokenizer(self, value: Any) -> None:
        self.inner.tokenizer = value

    @property
    def processor(self) -> Any:
        return self.inner.processor

    @property
    def max_seq_length(self) -> int | None:
        return getattr(self.inner, "max_seq_length", None)

    @max_seq_length.setter
    def max_seq_length(self, value: int | None) -> None:
        self.inner.max_seq_length = value

    def get_embedding_dimension(self) -> int | None:
        """The inner module's output dimension (under its v6 or v5 name)."""
        for name in ("get_embedding_dimension", "get_word_embedding_dimension", "get_sentence_embedding_dimension"):
            method = getattr(self.inner, name, None)
            if callable(method):
                return method()
        return None

    def get_word_embedding_dimension(self) -> int | None:
        """The name sentence-transformers < 6 uses for :meth:`get_embedding_dimension`."""
        return self.get_embedding_dimension()

    def extra_repr(self) -> str:
        return f"language={self.language!r}, threshold={self.threshold!r}"

    # --- persistence: a JSON file and the inner module's own files ----------------------------
    def save(self, output_path: str, *args: Any, safe_serialization: bool = True, **kwargs: Any) -> None:
        """Write ``charwise_repair.json`` and the inner module (its ``save``) into ``inner/``."""
        inner = self.inner
        ref = _class_ref(type(inner))
        # Refuse now what load() would refuse later.
        if _trusted_class(ref, ConfigError) is not type(inner):
            raise ConfigError(f"cannot save {ref}: it is not importable under that name")
        if not callable(getattr(inner, "save", None)):
            raise ConfigError(f"cannot save {ref}: it has no save method")
        path = Path(output_path)
        (path / INNER_DIR).mkdir(parents=True, exist_ok=True)
        try:
            inner.save(str(path / INNER_DIR), safe_serialization=safe_serialization)
        except TypeError:  # an older module's save(path), as sentence-transformers falls back
            inner.save(str(path / INNER_DIR))
        config = {"format": FORMAT, "format_version": FORMAT_VERSION, "language": self.language,
                  "threshold": self.threshold, "module": {"qualname": ref, "path": INNER_DIR}}
        (path / CONFIG_NAME).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", token: bool | str | None = None,
             cache_folder: str | None = None, revision: str | None = None, local_files_only: bool = False,
             **kwargs: Any) -> "RepairInput":
        """A module saved by :meth:`save`: ``RepairInput.load(path)``, or sentence-transformers'
        loader (``subfolder`` and the hub and module keywords, passed on to the inner module's load)."""
        hub = {"token": token, "cache_folder": cache_folder, "revision": revision, "local_files_only": local_files_only}
        directory = _module_directory(str(model_name_or_path), subfolder, hub)
        config_path = directory / CONFIG_NAME
        config = read_module_config(config_path, FORMAT, FORMAT_VERSION, "RepairInput")
        module = config.get("module")
        if not isinstance(module, dict) or module.get("path") != INNER_DIR:
            raise CheckpointError(f"bad RepairInput config '{config_path}': 'module' must name the class in "
                                  f"'{INNER_DIR}/'")
        inner_class = _trusted_class(module.get("qualname"))
        try:  # the settings are checked before the (possibly large) inner module is read
            language = check_language(config.get("language"))
            threshold = check_threshold(config.get("threshold"), "repair threshold")
        except ConfigError as e:
            raise CheckpointError(f"bad RepairInput config '{config_path}': {e}") from None
        inner_kwargs = {k: v for k, v in kwargs.items() if k not in _OWN_LOAD_KWARGS}
        if len(inspect.signature(inner_class.load).parameters) == 1:  # an older module's load(path)
            inner = inner_class.load(str(directory / INNER_DIR))
        else:
            inner_subfolder = f"{subfolder.rstrip('/')}/{INNER_DIR}" if subfolder else INNER_DIR
            inner = inner_class.load(str(model_name_or_path), subfolder=inner_subfolder, **hub, **inner_kwargs)
        return cls(inner, language, threshold=threshold)


def repairing(model: Any, language: str = "en", *, threshold: float | None = None,
              device: str | None = None) -> Any:
    """A ``SentenceTransformer`` that repairs misspelled words before ``model`` reads them.

    The new model's modules are ``[RepairInput(model[0]), *model[1:]]``: the same module objects
    (weights shared, not copied), on the same device, with the same prompts, similarity function
    and truncation. Texts without a confident misspelling get exactly ``model``'s vectors. The
    speller runs on the CPU without torch (:mod:`charwise.speller`): only the model's inputs go to
    its device, once per batch.

    Args:
        model: a ``sentence_transformers.SentenceTransformer``.
        language: the language of the texts it will read (``"en"`` or ``"es"``).
        threshold: see :class:`RepairInput`.
        device: where the model runs (``"cuda"``, ``"cpu"``...); default: where ``model`` is. Its
            modules are shared, so ``model`` moves there too.

    Example::

        from sentence_transformers import SentenceTransformer
        from charwise.hybrid.st_repair import repairing

        base = SentenceTransformer("intfloat/multilingual-e5-small")
        model = repairing(base, "es")
        model.encode(["query: ¿Dónde está la estasión?"])  # reads "estación"
        model.save("e5-repair")   # load: SentenceTransformer("e5-repair", trust_remote_code=True)
    """
    st = _require_sentence_transformers()
    if not isinstance(model, st.SentenceTransformer):
        raise TypeError(f"repairing() takes a sentence_transformers.SentenceTransformer, got {type(model).__name__}")
    if device is not None:
        from charwise.devices import check_device

        device = str(check_device(device))
    names = list(model._modules)
    modules = [model._modules[name] for name in names]
    if not modules:
        raise ConfigError("repairing() needs a SentenceTransformer with modules")
    if isinstance(modules[0], RepairInput):
        raise ConfigError("this SentenceTransformer already repairs its inputs (its first module is a RepairInput)")
    first = RepairInput(modules[0], language, threshold=threshold)
    repaired = _repairing_class()(
        modules=[first, *modules[1:]], device=device or str(model.device),
        prompts=dict(getattr(model, "prompts", {}) or {}),
        default_prompt_name=getattr(model, "default_prompt_name", None),
        similarity_fn_name=getattr(model, "similarity_fn_name", None),
        truncate_dim=getattr(model, "truncate_dim", None),
    )
    # Per-module forward keywords are keyed by module name; a list of modules is named by position.
    old_kwargs = getattr(model, "module_kwargs", None)
    if old_kwargs:
        repaired.module_kwargs = {new: old_kwargs[old] for new, old in zip(repaired._modules, names)
                                  if old in old_kwargs}
    return repaired


_REPAIRING_CLASS: type | None = None


def _repairing_class() -> type:
    """``RepairingSentenceTransformer``: a ``SentenceTransformer`` whose ``encode`` tells its
    :class:`RepairInput` where a call begins and ends, so that :attr:`RepairInput.last_repairs`
    comes back in the order of the call's inputs. Built on first use (sentence-transformers is
    optional) and reachable as ``charwise.hybrid.st_repair.RepairingSentenceTransformer``, so that
    such models pickle (sentence-transformers' multi-process pool sends the model to its workers)."""
    global _REPAIRING_CLASS
    if _REPAIRING_CLASS is None:
        st = _require_sentence_transformers()

        class RepairingSentenceTransformer(st.SentenceTransformer):  # type: ignore[name-defined]
            """A SentenceTransformer whose first module is a :class:`RepairInput` (see :func:`repairing`)."""

            def encode(self, *args: Any, **kwargs: Any) -> Any:
                first = self[0] if len(self) else None
                if not isinstance(first, RepairInput):
                    return super().encode(*args, **kwargs)
                inputs = args[0] if args else kwargs.get("inputs", kwargs.get("sentences"))
                prompts = [p for p in (kwargs.get("prompt"), (self.prompts or {}).get(
                    kwargs.get("prompt_name") or self.default_prompt_name or "")) if isinstance(p, str) and p]
                first._start_call()
                try:
                    return super().encode(*args, **kwargs)
                finally:
                    first._end_call(inputs, prompts)

        RepairingSentenceTransformer.__module__ = __name__
        RepairingSentenceTransformer.__qualname__ = "RepairingSentenceTransformer"
        _REPAIRING_CLASS = RepairingSentenceTransformer
    return _REPAIRING_CLASS


def __getattr__(name: str) -> Any:
    if name == "RepairingSentenceTransformer":  # built on first use (see _repairing_class)
        return _repairing_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


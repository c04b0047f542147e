"""Vocabulary expansion (Wang et al. 2019): new whole-word tokens with good embedding rows.

The stages, one module each:

* :mod:`~charwise.expansion.selection`: which words to add (a word list or a corpus), in the
  vocabulary form of the teacher's tokenizer family;
* :mod:`~charwise.expansion.mappings`: a row for each new word (``mean``, ``char``, ``mixture``,
  ``joint`` and their ``+`` averages), from static vectors in :mod:`~charwise.expansion.vectors`;
* :mod:`~charwise.expansion.tokenizer`: the tokenizer with the new entries;
* :mod:`~charwise.expansion.writer`: a plain Hugging Face checkpoint with both, written atomically.

Example::

    from charwise import Teacher
    from charwise.expansion import Expander, select_words, write_expanded_model

    teacher = Teacher.load("minilm")
    selection = select_words(teacher, ["nanotechnologies", "bsusinessses"])
    rows = Expander(teacher).rows(selection.words, "mean")
    write_expanded_model(teacher, selection, rows, "minilm-expanded")
"""

from charwise.expansion.mappings import (
    BASE_METHODS,
    STATIC_METHODS,
    Expander,
    ExpansionRows,
    JointMap,
    csls,
    csls_topk,
    default_encoder,
    fit_joint,
    mean_topk_cosine,
    mixture_weights,
    parse_method,
    procrustes,
)
from charwise.expansion.selection import (
    Selection,
    corpus_word_counts,
    read_corpus_lines,
    select_from_corpus,
    select_words,
    word_token,
)
from charwise.expansion.tokenizer import check_new_tokens, expanded_tokenizer_json, pieces_without, tokenizer_without
from charwise.expansion.vectors import StaticVectors
from charwise.expansion.writer import REPORT_FILE, check_output_dir, write_expanded_model

__all__ = [
    "BASE_METHODS", "REPORT_FILE", "STATIC_METHODS", "Expander", "ExpansionRows", "JointMap", "Selection",
    "StaticVectors", "check_new_tokens", "check_output_dir", "corpus_word_counts", "csls", "csls_topk",
    "default_encoder", "expanded_tokenizer_json", "fit_joint", "mean_topk_cosine", "mixture_weights",
    "parse_method", "pieces_without", "procrustes", "read_corpus_lines", "select_from_corpus", "select_words",
    "tokenizer_without", "word_token", "write_expanded_model",
]

"""Tokenizer surgery: a teacher's ``tokenizer.json`` with entries removed or new whole words added.

* :func:`tokenizer_without` / :func:`pieces_without`: how the tokenizer would split words it has
  today if some entries did not exist (the benchmark's held-out words pretend to be new).
* :func:`expanded_tokenizer_json`: the tokenizer with new whole-word entries at given ids.
* :func:`check_new_tokens`: each new word must be read as exactly its new token.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterable

from charwise.errors import ConfigError, InputError
from charwise.expansion.selection import _backend
from charwise.teachers import Teacher


def tokenizer_without(teacher: Teacher, rows: Iterable[int]) -> Any:
    """A copy of the teacher's backend tokenizer as if the vocabulary entries ``rows`` did not exist
    (ids of every other entry unchanged), to see how it would split words it has today.

    WordPiece: the entries are removed, so greedy longest-match-first falls back to shorter
    pieces. Byte-level BPE: the entries and every merge that creates or uses them are removed, which
    undoes the merge that created each entry (recursively when its parts are removed too).
    Unigram: ids are list positions, so the entries stay but with a score no path would choose.
    """
    from tokenizers import Tokenizer

    backend = _backend(teacher)
    spec = json.loads(backend.to_str())
    # Some tokenizer files pad or truncate every encoding (MiniLM's pads to 128): pieces only here.
    spec["padding"] = None
    spec["truncation"] = None
    model = spec["model"]
    drop = {teacher.vocab.tokens[int(r)] for r in rows}
    if model["type"] in ("WordPiece", "BPE"):
        for tok in drop:
            model["vocab"].pop(tok, None)
        if model["type"] == "BPE":
            kept = []
            for merge in model["merges"]:
                a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
                if a in drop or b in drop or a + b in drop:
                    continue
                kept.append(merge)
            model["merges"] = kept
    elif model["type"] == "Unigram":
        for entry in model["vocab"]:
            if entry[0] in drop:
                entry[1] = -1e9
    else:
        raise ConfigError(f"cannot remove entries from a {model['type']} tokenizer (WordPiece, BPE or Unigram only)")
    return Tokenizer.from_str(json.dumps(spec))


def pieces_without(teacher: Teacher, rows: Iterable[int], words: list[str]) -> list[list[int]]:
    """Piece ids of ``words`` (as inside a sentence) under :func:`tokenizer_without`."""
    tok = tokenizer_without(teacher, rows)
    texts = words if teacher.family == "wordpiece" else [" " + w for w in words]
    return [enc.ids for enc in tok.encode_batch(texts, add_special_tokens=False)]



def _unigram_score(model: dict, backend: Any, token: str) -> float:
    """A score that makes ``token`` the best segmentation of itself, even when other new words are
    parts of it (``caer`` and ``caerá`` both added): its current best path's total log-probability
    plus ln 2 per character, less 0.01. Any other path through new tokens gains at most ln 2 per
    character it covers with them, and paying the 0.01 once per token it loses when it needs two or
    more; so the whole word wins. Text containing none of the new words tokenises as before."""
    scores = model["vocab"]
    total = sum(scores[p.id][1] for p in backend.model.tokenize(token))
    # A log-probability is at most 0 (reached only by a word that is one unknown piece today).
    return min(total + math.log(2.0) * len(token) - 0.01, 0.0)


#: Unigram score of placeholder pieces: far below any real piece, so Viterbi never picks them.
UNREACHABLE_SCORE = -1e6


def expanded_tokenizer_json(teacher: Teacher, tokens: list[str], first_id: int) -> tuple[dict, dict[str, Any]]:
    """The teacher's ``tokenizer.json`` with ``tokens`` added to the model's vocabulary at ids
    ``first_id, first_id + 1, ...`` as ordinary whole-word entries.

    * WordPiece: greedy longest-match-first picks the whole word before any shorter prefix.
    * byte-level BPE: merges cannot reach a new token without inventing intermediate tokens, so
      the model's ``ignore_merges`` is switched on (as in Llama 3's tokenizer): a pre-token that is
      itself in the vocabulary is used directly. Every existing token is reachable by its merges
      anyway (checked: the count of tokens this changes is reported), so old text tokenises as before.
    * SentencePiece (Unigram): the entry gets the score of :func:`_unigram_score`.
    """
    backend = _backend(teacher)
    spec = json.loads(backend.to_str())
    model = spec["model"]
    info: dict[str, Any] = {"model": model["type"]}
    if model["type"] in ("WordPiece", "BPE"):
        vocab = model["vocab"]
        before = list(vocab)
        taken = set(vocab.values())
        for i, tok in enumerate(tokens):
            if tok in vocab:
                raise InputError(f"{tok!r} is already in the vocabulary")
            if first_id + i in taken:
                raise InputError(f"id {first_id + i} is already used by the tokenizer")
            vocab[tok] = first_id + i
        if model["type"] == "BPE":
            if not model.get("ignore_merges"):
                # With ignore_merges a pre-token equal to a vocabulary entry becomes that entry; this
                # changes old text only for entries the merges could not reach: count them.
                # Added tokens (<|endoftext|>, ...) are split off before the model ever sees them.
                added = {a["content"] for a in spec.get("added_tokens", [])}
                unreachable = [t for t in before
                               if t not in added and [p.value for p in backend.model.tokenize(t)] != [t]]
                info["existing_tokens_changed_by_ignore_merges"] = len(unreachable)
            model["ignore_merges"] = True
    elif model["type"] == "Unigram":
        vocab_list = model["vocab"]
        if len(vocab_list) > first_id:
            raise InputError(
                f"the Unigram vocabulary has {len(vocab_list)} entries but new ids start at {first_id}: "
                "the embedding table and the tokenizer disagree in size"
            )
        known = {piece for piece, _ in vocab_list}
        # Table rows past the tokenizer's pieces (multilingual-e5-small has 35) are never produced;
        # placeholders keep their ids, and a score no segmentation would choose keeps them unreachable.
        info["placeholder_pieces"] = first_id - len(vocab_list)
        while len(vocab_list) < first_id:
            placeholder = f"<charwise-unused-{len(vocab_list)}>"
            vocab_list.append([placeholder, UNREACHABLE_SCORE])
            known.add(placeholder)
        for tok in tokens:
            if tok in known:
                raise InputError(f"{tok!r} is already in the vocabulary")
            vocab_list.append([tok, _unigram_score(model, backend, tok)])
            known.add(tok)
    else:
        raise ConfigError(f"cannot add words to a {model['type']} tokenizer (WordPiece, BPE or Unigram only)")
    return spec, info



def check_new_tokens(tokenizer: Any, family: str, words: list[str], ids: list[int]) -> None:
    """Each new word must be exactly its new id, alone (as inside a sentence) and in a sentence."""
    alone = words if family == "wordpiece" else [" " + w for w in words]
    inside = [f"the {w} is" for w in words]
    enc_alone = tokenizer(alone, add_special_tokens=False)["input_ids"]
    enc_inside = tokenizer(inside, add_special_tokens=False)["input_ids"]
    for w, i, a, s in zip(words, ids, enc_alone, enc_inside):
        if list(a) != [i] or list(s).count(i) != 1:
            raise InputError(f"the expanded tokenizer does not read {w!r} as its new token {i} (got {list(a)})")


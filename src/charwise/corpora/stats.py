"""Corpus statistics: how badly does a teacher's tokenizer shatter the words of a corpus?

:func:`charwise.corpora.read_sentences` turns a plain-text, CoNLL or CoNLL-U file into sentences of
words; :func:`corpus_stats`
tokenises every word TYPE once (as it appears inside a sentence, see :meth:`Teacher.piece_ids`)
and counts by frequency, so a million words take seconds.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any, Callable

HIST_KEYS = ("1", "2", "3", "4", "5+")
TYPES_AT_ONCE = 20_000  # word types tokenised at a time (a progress report after each)


# --- statistics ------------------------------------------------------------------------------
def _pct(num: float, den: float) -> float:
    return round(100.0 * num / den, 2) if den else 0.0


def _summary(values: list[int]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "std": 0.0, "min": 0, "max": 0}
    n = len(values)
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    return {"mean": round(mean, 2), "std": round(std, 2), "min": min(values), "max": max(values)}


def _hist_key(n: int) -> str:
    return "5+" if n >= 5 else str(n)


def word_types(sentences: list[list[str]]) -> Counter[str]:
    """How often each word type (exact surface string) occurs in ``sentences``."""
    counts: Counter[str] = Counter()
    for sentence in sentences:
        counts.update(sentence)
    return counts


def corpus_stats(teacher: Any, sentences: list[list[str]], top: int = 20, corpus: str = "",
                 progress: Callable[[int], Any] | None = None, counts: Counter[str] | None = None) -> dict[str, Any]:
    """Fragmentation statistics of ``sentences`` under ``teacher``'s tokenizer.

    Types are exact surface strings; each type is tokenised once, as it appears inside a
    sentence (byte-BPE and SentencePiece: with a leading space; WordPiece: as is), a chunk of
    types at a time, ``progress(n)`` told of each ``n`` types done. ``counts``: the
    :func:`word_types` of ``sentences``, when the caller has them already.
    """
    if counts is None:
        counts = word_types(sentences)
    types = list(counts)
    ids: list[list[int]] = []
    for start in range(0, len(types), TYPES_AT_ONCE):  # a word's pieces do not depend on the chunk
        chunk = types[start : start + TYPES_AT_ONCE]
        ids += teacher.piece_ids(chunk)
        if progress is not None:
            progress(len(chunk))
    n_pieces = {w: len(p) for w, p in zip(types, ids)}
    unk_id = getattr(teacher.tokenizer, "unk_token_id", None)

    words = sum(counts.values())
    pieces = 0
    multitoken_types = 0
    oov = 0
    unk = 0
    hist = {k: 0 for k in HIST_KEYS}
    zero_piece = 0
    for w, p in zip(types, ids):
        c = counts[w]
        k = len(p)
        pieces += c * k
        if k > 1:
            multitoken_types += 1
        n_unk = sum(1 for i in p if i == unk_id) if unk_id is not None else 0
        unk += c * n_unk
        if k != 1 or n_unk:
            oov += c
        if k == 0:
            zero_piece += c
        else:
            hist[_hist_key(k)] += c
    if zero_piece:
        hist = {"0": zero_piece, **hist}

    shattered = sorted(((w, c) for w, c in counts.items() if n_pieces[w] >= 3), key=lambda x: (-x[1], x[0]))
    id_of = dict(zip(types, ids))
    most_shattered = [
        {"word": w, "count": c, "pieces": teacher.tokenizer.convert_ids_to_tokens(id_of[w])}
        for w, c in shattered[:top]
    ]
    sent_words = [len(s) for s in sentences]
    sent_pieces = [sum(n_pieces[w] for w in s) for s in sentences]
    return {
        "teacher": getattr(teacher, "name", str(teacher)),
        "family": getattr(teacher, "family", None),
        "corpus": str(corpus),
        "sentences": len(sentences),
        "words": words,
        "types": len(types),
        "pieces": pieces,
        "type_token_ratio": round(len(types) / words, 4) if words else 0.0,
        "multitoken_types": multitoken_types,
        "multitoken_types_pct": _pct(multitoken_types, len(types)),
        "pieces_per_word": round(pieces / words, 4) if words else 0.0,
        "token_mass_increase_pct": _pct(pieces - words, words),
        "pieces_per_word_histogram": hist,
        "sentence_length_words": _summary(sent_words),
        "sentence_length_pieces": _summary(sent_pieces),
        "oov_word_rate_pct": _pct(oov, words),
        "unk_rate_pct": _pct(unk, pieces),
        "most_shattered": most_shattered,
    }


# --- presentation ----------------------------------------------------------------------------
_ROWS = [
    ("sentences", "sentences"),
    ("words", "words"),
    ("types", "types"),
    ("type_token_ratio", "type/token ratio"),
    ("multitoken_types_pct", "multi-token types %"),
    ("token_mass_increase_pct", "token mass increase %"),
    ("pieces_per_word", "pieces per word"),
    ("oov_word_rate_pct", "OOV word rate %"),
    ("unk_rate_pct", "UNK piece rate %"),
]


def format_table(results: list[dict[str, Any]]) -> str:
    """Plain-text table, one column per teacher x corpus pair."""
    if isinstance(results, dict):
        results = [results]
    if not results:
        return "(no results)"
    headers = [f"{r['teacher']} / {Path(r['corpus']).name or '-'}" for r in results]
    rows: list[tuple[str, list[str]]] = []
    for key, label in _ROWS:
        rows.append((label, [_fmt(r.get(key, "")) for r in results]))
    keys = list(dict.fromkeys(k for r in results for k in r["pieces_per_word_histogram"]))
    for k in keys:
        rows.append((f"words with {k} piece(s)", [_fmt(r["pieces_per_word_histogram"].get(k, 0)) for r in results]))
    for key, label in (("sentence_length_words", "sentence length (words)"),
                       ("sentence_length_pieces", "sentence length (pieces)")):
        rows.append((label, [f"{r[key]['mean']:.1f} ± {r[key]['std']:.1f}" for r in results]))
    label_w = max(len(label) for label, _ in rows)
    col_w = [max(len(h), *(len(v[i]) for _, v in rows)) for i, h in enumerate(headers)]
    lines = [" " * label_w + "  " + "  ".join(h.rjust(w) for h, w in zip(headers, col_w))]
    lines.append("-" * len(lines[0]))
    for label, values in rows:
        lines.append(label.ljust(label_w) + "  " + "  ".join(v.rjust(w) for v, w in zip(values, col_w)))
    for r in results:
        if r["most_shattered"]:
            lines.append("")
            lines.append(f"most shattered words ({r['teacher']} / {Path(r['corpus']).name or '-'}):")
            for item in r["most_shattered"]:
                lines.append(f"  {item['count']:>6d}  {item['word']}  ->  {' '.join(item['pieces'])}")
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) >= 1 or v == 0 else f"{v:.4f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def plot_stats(results: list[dict[str, Any]], path: str | Path) -> Path:
    """One PNG: pieces-per-word histograms (share of word occurrences) of each pair side by side,
    written atomically (:func:`charwise.io.atomic_file`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if isinstance(results, dict):
        results = [results]
    from charwise.io import atomic_file

    path = Path(path)
    keys = list(dict.fromkeys(k for r in results for k in r["pieces_per_word_histogram"])) or list(HIST_KEYS)
    keys.sort(key=lambda k: (k.endswith("+"), int(k.rstrip("+"))))
    n = max(len(results), 1)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(6, 1.5 * len(keys) + n), 4))
    for j, r in enumerate(results):
        hist = r["pieces_per_word_histogram"]
        total = sum(hist.values()) or 1
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(keys))]
        ys = [100.0 * hist.get(k, 0) / total for k in keys]
        label = f"{r['teacher']} / {Path(r['corpus']).name or '-'} (+{r['token_mass_increase_pct']:.1f}% tokens)"
        ax.bar(xs, ys, width=width, label=label)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(keys)
    ax.set_xlabel("pieces per word")
    ax.set_ylabel("% of word occurrences")
    ax.set_title("How the teacher tokenizers split corpus words")
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        with atomic_file(path, "wb") as f:
            fig.savefig(f, dpi=120, format="png")
    finally:
        plt.close(fig)
    return path

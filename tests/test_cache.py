"""The cache: a build says what it builds, how big and how long, once; ``charwise cache info|prune``
list and remove entries; a word list is cached by its content, not its path."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from charwise.cache import USED_DIR, building, cache_entries, charwise_version, prune_cache, save_tables
from charwise.cli import main


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("CHARWISE_CACHE", str(root))
    return root


def test_a_build_says_what_how_big_and_how_long(cache, capfd):
    path = cache / "speller" / "zipf-test.safetensors"
    with building("a test table", path):
        save_tables({"x": np.zeros(1000, dtype=np.float32)}, path, "a test table")
    out, err = capfd.readouterr()
    before, after = err.splitlines()
    assert out == "" and before.startswith("charwise: building a test table (once; cached in")
    assert after.startswith("charwise: built a test table in ") and "4.1 kB in zipf-test.safetensors" in after


def test_info_lists_entries_and_prune_removes_the_unused(cache, capsys):
    speller = cache / "speller"
    save_tables({"x": np.zeros(10, dtype=np.float32)}, speller / "vectors-en-aaaa.safetensors", "vectors of a test")
    old = speller / "edit-index-bbbb.safetensors"  # built by an earlier version: no marker of this one
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(b"\0" * 100)
    os.utime(old, (time.time() - 40 * 86400,) * 2)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"location: {cache}" in out and "entries:  2" in out
    assert "vectors of a test" in out and "edit index" in out and "not used by this version" in out
    assert "last used just now, used by this version" in out and "last used 40 days ago, not used" in out
    entries = {e.path.name: e for e in cache_entries()}
    assert entries["vectors-en-aaaa.safetensors"].versions == (charwise_version(),)
    assert entries["vectors-en-aaaa.safetensors"].built_by == charwise_version()

    assert main(["cache", "prune", "--dry-run"]) == 0
    assert "would remove speller/edit-index-bbbb.safetensors" in capsys.readouterr().out and old.exists()
    assert [e.path.name for e in prune_cache(older_than_days=30, dry_run=True)] == [old.name]
    assert main(["cache", "prune"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert not old.exists() and (speller / "vectors-en-aaaa.safetensors").exists()
    assert main(["cache", "prune", "--all"]) == 0
    assert cache_entries() == [] and not any((cache / USED_DIR).rglob("vectors-*"))


def test_prune_removes_nothing_before_this_version_used_the_cache(cache, capsys):
    (cache / "speller").mkdir(parents=True)
    (cache / "speller" / "lexicon-en-cccc.safetensors").write_bytes(b"\0" * 10)
    assert main(["cache", "prune"]) == 0
    assert "has not used the cache" in capsys.readouterr().out
    assert (cache / "speller" / "lexicon-en-cccc.safetensors").exists()
    assert main(["cache", "prune", "--older-than", "-1"]) == 2  # a bad option is one line


@pytest.mark.slow
def test_a_word_list_is_cached_by_its_content_not_its_path(cache, tmp_path, capfd):
    from charwise.speller.lexicon import Lexicon

    first, second = tmp_path / "a.txt", tmp_path / "elsewhere" / "b.txt"
    second.parent.mkdir()
    for path in (first, second):
        path.write_text("Okrent\nzorblax\n", encoding="utf-8")
    capfd.readouterr()
    built = Lexicon.build("en", dictionaries=("symspell",), word_files=[first])
    assert "building the en speller lexicon with 1 user word source(s)" in capfd.readouterr().err
    again = Lexicon.build("en", dictionaries=("symspell",), word_files=[second])  # same words, another path
    assert capfd.readouterr().err == "" and again.entries == built.entries and "zorblax" in again
    assert len(list((cache / "speller").glob("lexicon-*"))) == 1

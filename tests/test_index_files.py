"""The candidate indexes read back from disk answer as the built ones do."""

from __future__ import annotations

import pytest

from charwise.speller.candidates import CandidateIndex
from charwise.speller.index_files import FrozenDeletes, edit_index, sound_keys
from charwise.typos.sounds import sound_key
from conftest import tiny_lexicon

WORDS = ["receive", "relieve", "the", "then", "than", "package", "separate", "house", "horse", "naïve", "año"]
COUNTS = [500, 300, 9000, 800, 700, 400, 350, 600, 450, 20, 90]
PROBES = ["recieve", "teh", "hte", "pakage", "seperate", "hous", "naive", "ano", "xyz", "a", "thenn", "receive"]


def lookups(index, words, distance=2):
    from symspellpy import Verbosity

    return [[(s.term, s.distance, s.count) for s in index.lookup(w, Verbosity.ALL, max_edit_distance=distance)]
            for w in words]


def test_the_index_read_back_gives_the_same_lookups(tmp_path):
    built = edit_index(WORDS, COUNTS, 2, 7, None)
    first = edit_index(WORDS, COUNTS, 2, 7, tmp_path)  # builds and writes
    (saved,) = tmp_path.glob("edit-index-*.safetensors")
    read = edit_index(WORDS, COUNTS, 2, 7, tmp_path)
    assert isinstance(read._deletes, FrozenDeletes) and not isinstance(first._deletes, FrozenDeletes)
    assert lookups(read, PROBES) == lookups(built, PROBES) == lookups(first, PROBES)
    assert dict(read._deletes) == dict(built._deletes)
    assert saved.stat().st_size > 0


def test_other_words_or_settings_make_another_file(tmp_path):
    edit_index(WORDS, COUNTS, 2, 7, tmp_path)
    edit_index(WORDS, [c + 1 for c in COUNTS], 2, 7, tmp_path)
    edit_index(WORDS, COUNTS, 1, 7, tmp_path)
    assert len(list(tmp_path.glob("edit-index-*.safetensors"))) == 3
    one = edit_index(WORDS, COUNTS, 1, 7, tmp_path)
    found = lookups(one, PROBES, 1)
    assert all(d <= 1 for hits in found for _, d, _ in hits) and found[5][0][0] == "house"  # "hous"
    assert lookups(one, ["pakcge"], 1) == [[]]  # two edits from "package"


@pytest.mark.parametrize("damage", [b"", b"not a safetensors file", b"\x08\x00\x00\x00\x00\x00\x00\x00{}"])
def test_a_damaged_file_is_rebuilt(tmp_path, damage):
    edit_index(WORDS, COUNTS, 2, 7, tmp_path)
    (saved,) = tmp_path.glob("edit-index-*.safetensors")
    saved.write_bytes(damage)
    index = edit_index(WORDS, COUNTS, 2, 7, tmp_path)
    assert lookups(index, PROBES) == lookups(edit_index(WORDS, COUNTS, 2, 7, None), PROBES)


def test_the_candidate_index_uses_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path))
    lexicon = tiny_lexicon()
    cached, fresh = CandidateIndex(lexicon), CandidateIndex(lexicon, cache=False)
    assert [cached.lookup(w) for w in PROBES] == [fresh.lookup(w) for w in PROBES]
    assert list((tmp_path / "speller").glob("edit-index-*.safetensors"))
    again = CandidateIndex(lexicon)
    assert isinstance(again.symspell._deletes, FrozenDeletes)
    assert [again.lookup(w) for w in PROBES] == [fresh.lookup(w) for w in PROBES]


def test_frozen_deletes_is_a_read_only_mapping(tmp_path):
    edit_index(WORDS, COUNTS, 2, 7, tmp_path)
    deletes = edit_index(WORDS, COUNTS, 2, 7, tmp_path)._deletes
    assert "then" in deletes and "zzz" not in deletes and len(deletes) == len(list(deletes))
    with pytest.raises(KeyError):
        deletes["zzz"]
    with pytest.raises(TypeError):
        deletes["zzz"] = ["x"]  # type: ignore[index]


def test_sound_keys_are_read_back_and_a_damaged_file_recomputed(tmp_path):
    computed = [sound_key(w, "es") for w in WORDS]
    assert sound_keys(WORDS, "es", None) == computed
    assert sound_keys(WORDS, "es", tmp_path) == computed  # computes and writes
    (saved,) = tmp_path.glob("sound-keys-es-*.safetensors")
    assert sound_keys(WORDS, "es", tmp_path) == computed  # reads
    saved.write_bytes(b"damaged")
    assert sound_keys(WORDS, "es", tmp_path) == computed
    assert sound_keys([], "es", tmp_path) == []
    assert sound_keys(WORDS[:3], "es", tmp_path) == computed[:3]  # other words: another file


def test_tables_round_trip_and_map_read_only(tmp_path):
    import numpy as np

    from charwise.cache import array_text, load_tables, map_table, save_tables, text_array

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((50, 8)).astype(np.float16)
    path = tmp_path / "tables.safetensors"
    save_tables({"vectors": vectors, "words": text_array(["año", "naïve", "x"])}, path)
    assert array_text(load_tables(path)["words"]) == ["año", "naïve", "x"]
    mapped = map_table(path, "vectors")
    assert mapped.dtype == np.float16 and np.array_equal(mapped, vectors)
    with pytest.raises(ValueError):
        mapped[0, 0] = 1  # read-only
    with pytest.raises(KeyError):
        map_table(path, "missing")
    path.write_bytes(path.read_bytes()[:-200])  # cut short: the mapping cannot cover the table
    with pytest.raises(ValueError):
        map_table(path, "vectors")

"""charwise.speller: the lexicon, the candidates, the scorer file and the speller (tiny and real)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from charwise.errors import CharwiseError, CheckpointError, ConfigError
from charwise.speller import Lexicon, Speller, SpellerSettings
from charwise.speller.candidates import EDITS, NEIGHBOURS, SOUNDS, WRITTEN, CandidateBatch, CandidateIndex
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES, Featurizer, rank_order, segment_max
from charwise.speller.known_misspellings import listed_corrections
from charwise.speller.lexicon import DICTIONARY, USER, LexiconEntry
from charwise.speller.scorer import SpellScorer, SpellScorerConfig
from charwise.typos.sounds import sound_key, strip_accents
from charwise.words import split_words
from conftest import fitted_scorer, fresh_cache_unless_real, tiny_encoder, tiny_lexicon


@pytest.fixture(autouse=True)
def cache_dir(request, tmp_path, monkeypatch):
    fresh_cache_unless_real(request, tmp_path, monkeypatch)


# --- sound keys ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), [("definately", "definitely"), ("recieve", "receive"), ("wierd", "weird"),
                                      ("seperate", "separate"), ("accomodate", "accommodate"), ("rythm", "rhythm"),
                                      ("fysical", "physical"), ("independant", "independent")])
def test_english_sound_keys_undo_the_rules(a, b):
    assert sound_key(a, "en") == sound_key(b, "en")


@pytest.mark.parametrize(("a", "b"), [("bino", "vino"), ("aser", "hacer"), ("cancion", "canción"),
                                      ("cabayo", "caballo"), ("jente", "gente"), ("tiera", "tierra"),
                                      ("tanbien", "también"), ("inpreso", "impreso"), ("enbidia", "envidia")])
def test_spanish_sound_keys_undo_the_rules(a, b):
    assert sound_key(a, "es") == sound_key(b, "es")


def test_sound_keys_keep_different_words_apart_and_refuse_unknown_languages():
    assert sound_key("house", "en") != sound_key("horse", "en")
    assert strip_accents("canción") == "cancion"
    with pytest.raises(ConfigError, match="no sound keys"):
        sound_key("word", "xx")


# --- lexicon ---------------------------------------------------------------------------------------------
def test_lexicon_membership_is_case_aware():
    lexicon = tiny_lexicon({"wycombe": LexiconEntry(2.7, USER, capitalised=True)})
    assert "receive" in lexicon and "Receive" in lexicon and "RECEIVE" in lexicon
    assert "recieve" not in lexicon and 42 not in lexicon
    assert "Wycombe" in lexicon and "wycombe" not in lexicon  # a name known only capitalised


def test_lexicon_build_from_dictionaries_user_words_and_cache(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("# my words\nWycombe\nchai\n", encoding="utf-8")
    lexicon = Lexicon.build("en", dictionaries=("symspell",), word_files=[words])
    assert "receive" in lexicon and "recieve" not in lexicon and "definately" not in lexicon
    assert "Wycombe" in lexicon and "wycombe" not in lexicon and "chai" in lexicon
    assert lexicon.zipf("receive") > 4 and lexicon.zipf("definately") > 2  # wordfreq lists the misspelling
    cached = list((tmp_path / "cache" / "speller").glob("lexicon-en-*.safetensors"))
    assert len(cached) == 1
    again = Lexicon.build("en", dictionaries=("symspell",), word_files=[words])
    assert again.entries == lexicon.entries
    words.write_text("Wycombe\n", encoding="utf-8")  # the input changed: a new lexicon
    changed = Lexicon.build("en", dictionaries=("symspell",), word_files=[words])
    assert "chai" not in changed or changed.entries["chai"].sources & DICTIONARY
    assert len(list((tmp_path / "cache" / "speller").glob("lexicon-en-*.safetensors"))) == 2


def test_lexicon_damaged_cache_is_rebuilt(tmp_path):
    first = Lexicon.build("en", dictionaries=("symspell",))
    (path,) = (tmp_path / "cache" / "speller").glob("lexicon-en-*.safetensors")
    path.write_bytes(b"not gzip at all")
    assert Lexicon.build("en", dictionaries=("symspell",)).entries == first.entries


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"language": "xx"}, "no speller lexicon"),
    ({"dictionaries": ("symspell",), "language": "es"}, "no symspell dictionary"),
    ({"min_count": 0}, "min_count"),
])
def test_lexicon_bad_settings(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        Lexicon.build(**kwargs)


def test_lexicon_bad_word_files(tmp_path):
    with pytest.raises(CharwiseError, match="directory"):
        Lexicon.build("en", word_files=[tmp_path])
    with pytest.raises(CharwiseError, match="not found"):
        Lexicon.build("en", word_files=[tmp_path / "missing.txt"])


# --- candidates ------------------------------------------------------------------------------------------
def test_candidates_by_edits_and_by_sound():
    index = CandidateIndex(tiny_lexicon())
    found = index.lookup("recieve")
    assert found["receive"] & EDITS and found["receive"] & SOUNDS and "relieve" in found
    far = index.lookup("dephinatelly")  # four edits, one sound
    assert far["definitely"] == SOUNDS
    assert index.lookup("house")["house"] & WRITTEN
    assert index.lookup("zzzzzzzz") == {}
    with pytest.raises(ConfigError):
        CandidateIndex(tiny_lexicon(), max_distance=0)


# --- the batch featurizer --------------------------------------------------------------------------------
FEATURIZED = ["recieve", "pakage", "zzzzzzzzzz", "house", "horsee", "wierd", "dephinatelly", "recieve", "b"]
ENCODER_COLUMNS = [RANK_FEATURES.index(n) for n in ("cos_encoder", "cos_row", "cos_gap")]


def test_batch_featurizer_gives_the_rows_of_one_word_at_a_time(tiny_speller):
    featurizer = tiny_speller.featurizer
    batch = featurizer.featurize(FEATURIZED, neighbours=3)
    assert batch.rows.shape == (len(batch.names), len(RANK_FEATURES)) and batch.rows.dtype == np.float32
    assert batch.offsets[0] == 0 and batch.offsets[-1] == len(batch.names) and len(batch.offsets) == len(FEATURIZED) + 1
    other = [i for i in range(len(RANK_FEATURES)) if i not in ENCODER_COLUMNS]
    for i, word in enumerate(FEATURIZED):
        alone = featurizer.featurize([word], neighbours=3)
        names, rows = batch.of(i)
        assert names == alone.names and [tiny_speller.featurizer.vectors.words[j] for j in batch.ids[
            batch.offsets[i] : batch.offsets[i + 1]]] == names
        # the character encoder pads a batch to its longest word: its vectors agree to float32 precision
        assert np.array_equal(rows[:, other], alone.rows[:, other]), word
        assert np.allclose(rows, alone.rows, rtol=0, atol=1e-6), word
    names, rows = batch.of(0)
    assert "receive" in names and "relieve" in names
    assert batch.of(2)[0] and all(f == NEIGHBOURS for f in batch.flags[batch.offsets[2] : batch.offsets[3]])
    assert batch.of(3)[0][0] == "house" and batch.flags[batch.offsets[3]] & WRITTEN
    empty = featurizer.featurize([])
    assert empty.names == [] and empty.rows.shape == (0, len(RANK_FEATURES)) and list(empty.offsets) == [0]
    assert featurizer.featurize(["zzzzzzzzzz"], neighbours=0).names == []


def test_feature_columns_are_named_and_complete(tiny_speller):
    featurizer = tiny_speller.featurizer
    raw, projected = featurizer.vectors.embed(["recieve", "pakage"])
    batch = featurizer.finder.gather(["recieve", "pakage"], projected, 3)
    columns = featurizer.columns(batch, raw, projected)
    assert set(columns) == set(RANK_FEATURES) and all(len(c) == len(batch.names) for c in columns.values())
    names, _ = batch.of(0)
    j = names.index("receive")
    assert columns["dl1"][j] and columns["transposition"][j] and columns["same_sound"][j]
    assert columns["prefix"][j] == pytest.approx(3 / 7) and columns["zipf_gap"][: len(names)].max() == 0
    with pytest.raises(ConfigError, match="no feature column for zipf"):
        from charwise.speller.features import stack

        stack({k: v for k, v in columns.items() if k != "zipf"}, RANK_FEATURES)


def test_rank_order_and_segment_max_work_word_by_word():
    scores = np.array([0.5, 2.0, 2.0, -1.0, 3.0, 1.0, 1.0, 1.0])
    offsets = np.array([0, 3, 3, 4, 8])  # the second word has no candidates
    order = rank_order(scores, offsets)
    expected = [offsets[i] + np.argsort(-scores[offsets[i] : offsets[i + 1]], kind="stable")
                for i in range(len(offsets) - 1)]
    assert order.tolist() == np.concatenate(expected).tolist() == [1, 2, 0, 3, 4, 5, 6, 7]
    assert segment_max(scores, offsets).tolist() == [2.0, 2.0, 2.0, -1.0, 3.0, 3.0, 3.0, 3.0]


def test_word_rows_are_each_words_own(tiny_speller):
    """The judge's rows of a batch, against the per-word arithmetic they replace."""
    featurizer = tiny_speller.featurizer
    batch = featurizer.featurize(FEATURIZED, neighbours=3)
    scores = tiny_speller.scorer.rank(batch.rows)
    word_rows = featurizer.word_rows(batch, scores, rank_order(scores, batch.offsets))
    with_candidates = [i for i in range(len(FEATURIZED)) if batch.counts[i]]
    assert word_rows.shape == (len(with_candidates), len(WORD_FEATURES)) and word_rows.dtype == np.float32
    f = {name: i for i, name in enumerate(RANK_FEATURES)}
    for row, i in zip(word_rows, with_candidates):
        names, rank_rows = batch.of(i)
        s = scores[batch.offsets[i] : batch.offsets[i + 1]]
        ranked = list(np.argsort(-s, kind="stable"))
        best = rank_rows[ranked[0]]
        second = s[ranked[1]] if len(ranked) > 1 else s[ranked[0]] - 10.0
        shares = np.exp(s - s.max())
        written = tiny_speller.lexicon.zipf(FEATURIZED[i])
        reference = np.array([s[ranked[0]], min(s[ranked[0]] - second, 10.0), shares[ranked[0]] / shares.sum(),
                              best[f["dl1"]] + 2 * best[f["dl2"]] + 3 * best[f["dl3+"]], best[f["same_sound"]],
                              best[f["zipf"]], written / 8, min(len(FEATURIZED[i]), 20) / 20, math.log(len(ranked)),
                              best[f["zipf"]] - written / 8, best[f["ctx_left"]] + best[f["ctx_right"]],
                              best[f["ctx_gap"]], best[f["ctx_seen_left"]] + best[f["ctx_seen_right"]],
                              best[f["ctx_present"]], best[f["listed"]],
                              float(bool(listed_corrections(FEATURIZED[i])))], dtype=np.float32)
        assert np.allclose(row, reference, rtol=1e-6, atol=1e-7), FEATURIZED[i]


def test_candidate_batches_select_and_concatenate(tiny_speller):
    featurizer = tiny_speller.featurizer
    a, b = featurizer.featurize(["recieve", "zzzzzzzzzz"], neighbours=0), featurizer.featurize(["pakage"])
    both = CandidateBatch.concatenate([a, b])
    assert both.words == ["recieve", "zzzzzzzzzz", "pakage"] and both.names == a.names + b.names
    assert both.counts.tolist() == [len(a.names), 0, len(b.names)] and np.array_equal(both.rows[: len(a.names)], a.rows)
    keep = np.array([n != "receive" for n in both.names])
    fewer = both.select(keep)
    assert "receive" not in fewer.names and fewer.counts.tolist() == [len(a.names) - 1, 0, len(b.names)]
    assert fewer.of(2)[0] == b.names and np.array_equal(fewer.of(2)[1], b.rows)


def test_a_speller_shares_a_featurizer_built_for_its_lexicon(tiny_speller):
    featurizer = tiny_speller.featurizer
    again = Speller.from_featurizer(featurizer, tiny_speller.scorer)
    assert again.featurizer is featurizer and again.index is featurizer.index
    assert again.settings.neighbours == 3 and again.suggest(["pakage"])[0][0].word == "package"
    with pytest.raises(ConfigError, match="another lexicon"):
        Speller(tiny_lexicon(), featurizer.encoder, tiny_speller.scorer, featurizer=featurizer)
    with pytest.raises(ConfigError, match="max_distance"):
        Speller(featurizer.lexicon, featurizer.encoder, tiny_speller.scorer, SpellerSettings(max_distance=1),
                featurizer=featurizer)
    with pytest.raises(ConfigError, match="neighbours"):
        Featurizer(featurizer.lexicon, featurizer.encoder, neighbours=-1)


# --- scorer file -----------------------------------------------------------------------------------------
def test_scorer_round_trip_and_strict_loading(tmp_path):
    scorer = SpellScorer(SpellScorerConfig(rank_hidden=4, threshold=0.9))
    rng = np.random.default_rng(1)
    scorer.set_parts({"rank_hidden_weight": rng.normal(size=(4, len(RANK_FEATURES))), "rank_weight": np.ones(4)})
    scorer.save_pretrained(tmp_path / "s")
    loaded = SpellScorer.from_pretrained(tmp_path / "s")
    rows = np.random.default_rng(0).random((5, len(RANK_FEATURES)))
    assert np.allclose(loaded.rank(rows), scorer.rank(rows))
    assert np.allclose(loaded(torch.tensor(rows, dtype=torch.float32)).numpy(), scorer.rank(rows), atol=1e-5)
    assert loaded.config.threshold == 0.9
    from transformers import AutoModel

    assert isinstance(AutoModel.from_pretrained(tmp_path / "s"), SpellScorer)
    # another feature list, another width, broken values: one-line refusals
    config = json.loads((tmp_path / "s" / "config.json").read_text())
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "model.safetensors").write_bytes((tmp_path / "s" / "model.safetensors").read_bytes())
    for change, message in (({"rank_features": ["dl1", "telepathy"]}, "does not compute \\(telepathy\\)"),
                            ({"rank_features": ["dl1"]}, "shape"), ({"rank_hidden": 8}, "shape"),
                            ({"threshold": 3}, "threshold"), ({"model_type": "bert"}, "not a charwise speller")):
        (tmp_path / "bad" / "config.json").write_text(json.dumps({**config, **change}))
        with pytest.raises(CheckpointError, match=message):
            SpellScorer.from_pretrained(tmp_path / "bad")
    from safetensors.torch import save_file

    state = {k: v.clone() for k, v in scorer.state_dict().items()}
    state["rank_bias"] = torch.tensor(float("nan"))
    save_file(state, str(tmp_path / "bad" / "model.safetensors"))
    (tmp_path / "bad" / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="NaN"):
        SpellScorer.from_pretrained(tmp_path / "bad")
    with pytest.raises(ConfigError, match="shape"):
        scorer.set_parts({"rank_weight": np.ones(3)})


# --- the speller with a tiny random encoder --------------------------------------------------------------
def test_a_word_alone_has_its_own_threshold(tiny_speller):
    (suggestions, p), = tiny_speller._score(["pakage"])
    assert suggestions[0].word == "package" and 0 < p < 1
    config = tiny_speller.scorer.config
    tiny_speller.settings.threshold = None
    config.threshold, config.alone_threshold = min(1.0, p + 0.01), None
    assert tiny_speller.correct("pakage").corrected == "pakage"  # the sentence threshold: unchanged
    config.alone_threshold = p  # a word alone is changed at its own threshold, in a sentence it is not
    assert tiny_speller.correct(" pakage! ").corrected == " package! "
    assert tiny_speller.correct("the pakage").corrected == "the pakage"
    tiny_speller.settings.threshold = min(1.0, p + 0.01)  # a threshold the user sets applies to every text
    assert tiny_speller.alone_threshold == tiny_speller.settings.threshold
    assert tiny_speller.correct("pakage").corrected == "pakage"
    for bad in (1.5, "0.5", True):
        with pytest.raises(ConfigError, match="alone_threshold"):
            SpellScorer(SpellScorerConfig(alone_threshold=bad))


def test_suggest_ranks_and_gives_probabilities(tiny_speller):
    (first,) = tiny_speller.suggest(["Recieve"])
    assert first[0].word == "receive"
    assert 0 <= first[-1].probability <= first[0].probability <= 1
    assert tiny_speller.suggest([]) == []
    (far,) = tiny_speller.suggest(["zzzzzzzzzz"])  # only the encoder's nearest rows
    assert len(far) == 3
    tiny_speller.settings.neighbours = 0
    assert tiny_speller.suggest(["zzzzzzzzzz"]) == [[]]
    with pytest.raises(TypeError):
        tiny_speller.suggest("recieve")
    with pytest.raises(ConfigError):
        tiny_speller.suggest(["recieve"], k=0)


def test_correct_repairs_errors_and_leaves_names_and_known_words(tiny_speller):
    result = tiny_speller.correct("Recieve the pakage, said Wycombe and Horsee in the HOUSEE of Shiitte.")
    assert result.corrected == "Receive the package, said Wycombe and Horsee in the HOUSE of Shiitte."
    assert result.marked().startswith("[Recieve -> Receive] the [pakage -> package],")
    looked = [w.word for w in result.words if w.looked_at]
    # names by their case and known words: no look; a word in capitals is read lower-case (tests/test_speller_case.py)
    assert looked == ["Recieve", "pakage", "HOUSEE"]
    assert tiny_speller.correct("After a stop. Pakage here!").corrected == "After a stop. Package here!"
    tiny_speller.settings.capital_threshold = 1.0  # a capitalised first word is changed only at this probability
    assert tiny_speller.correct("Recieve the pakage").corrected == "Recieve the package"
    assert tiny_speller.correct("Jürgen and Zoë").corrected == "Jürgen and Zoë"  # English: ASCII words only
    entry = result.to_dict()["words"][0]
    assert entry["word"] == "Recieve" and entry["suggestions"][0]["word"] == "receive" and entry["changed"]


def test_correct_keeps_every_character_of_awkward_text(tiny_speller):
    texts = ["", "   ", "a", "🙂 emoji 🙂", "naïve café", "x" * 5000, "tab\tseparated  spaces",
             "lone \ud800 surrogate", "  leading and trailing  ", "tab\tand\u00a0no-break",
             "combining e\u0301 mark", "mixed123 digits", "RTL שלום text"]
    for text, result in zip(texts, tiny_speller.correct_lines(texts)):
        assert result.text == text
        assert all(w.looked_at or not w.changed for w in result.words)
        assert all(text[w.start : w.end] == w.word for w in result.words)  # offsets into the original
        assert [w.word for w in result.words] == split_words(text).words
    tiny_speller.settings.threshold = 1.0
    assert [r.corrected for r in tiny_speller.correct_lines(texts)] == texts  # whitespace and all
    changed = tiny_speller.correct_lines(["  recieve\tthe  pakage "])[0]
    assert changed.corrected == "  recieve\tthe  pakage "
    tiny_speller.settings.threshold = 0.5
    changed = tiny_speller.correct_lines(["  recieve\tthe  pakage "])[0]
    assert changed.corrected == "  receive\tthe  package "
    assert changed.marked() == "  [recieve -> receive]\tthe  [pakage -> package] "


def test_threshold_one_changes_nothing(make_encoder, wordpiece_teacher):
    encoder = tiny_encoder(make_encoder, wordpiece_teacher)
    speller = Speller(tiny_lexicon(), encoder, fitted_scorer(), SpellerSettings(threshold=1.0))
    assert speller.correct("recieve pakage").corrected == "recieve pakage"
    with pytest.raises(ConfigError):
        SpellerSettings(threshold=1.5)
    with pytest.raises(ConfigError):
        SpellerSettings(neighbours=-1)
    with pytest.raises(ConfigError, match="trained for 'es'"):
        Speller(tiny_lexicon(), encoder, fitted_scorer(language="es"))


# --- the shipped English speller on the real weights -----------------------------------------------------
@pytest.fixture(scope="module")
def real_speller():
    """The shipped English speller, on the cache every real test shares (tests/test_speller_arrays.py
    builds the shipped speller's from nothing)."""
    speller = Speller.load("en")
    speller.index.symspell  # noqa: B018
    return speller


@pytest.mark.real
@pytest.mark.slow
def test_real_speller_corrects_real_misspellings(real_speller):
    words = ["recieved", "definately", "wierd", "emphaticaly", "seperate", "accomodate", "bussiness", "tomorow"]
    gold = ["received", "definitely", "weird", "emphatically", "separate", "accommodate", "business", "tomorrow"]
    ranked = real_speller.suggest(words)
    assert sum(r[0].word == g for r, g in zip(ranked, gold)) >= 7
    assert all(g in [s.word for s in r] for r, g in zip(ranked, gold))
    result = real_speller.correct("I recieved the pacakge and it was definately late.")
    assert result.corrected == "I received the package and it was definitely late."
    # with little sentence to decide, a known misspelling is still corrected: wierd (weird, wired) is
    # on the list of known misspellings (charwise.speller.known_misspellings) as weird
    ambiguous = real_speller.correct("teh wierd one")
    assert [w.suggestions[0].word for w in ambiguous.words[:2]] == ["the", "weird"]
    assert ambiguous.words[1].correction == "weird"


@pytest.mark.real
def test_real_speller_knows_the_contractions_the_dictionaries_lack(real_speller):
    # a closed class, accepted whatever the dictionaries hold (charwise.speller.lexicon.CONTRACTIONS)
    assert all(real_speller.lexicon.knows(w) for w in ("where'd", "that'll", "must've", "there'll", "what're"))
    for text in ("that'll do", "it must've been hard", "where'd you go?"):
        assert real_speller.correct(text).corrected == text
    # written without the apostrophe: put back, and never read as another word (whered was read as where)
    assert real_speller.correct("thatll do").corrected == "that'll do"
    assert real_speller.correct("whered you go").corrected != "where you go"


@pytest.mark.real
@pytest.mark.slow
def test_real_speller_leaves_clean_text_names_and_slang(real_speller):
    clean = ["The justices SOUTER and Scalia met in High Wycombe with Fahim.",
             "Shiite pogroms were reported; the duped voters left.",
             "Their chai was lovely tonight and the satellite launched."]
    for text in clean:
        assert real_speller.correct(text).corrected == text
    assert real_speller.scorer.config.language == "en" and 0.5 <= real_speller.threshold < 1
    assert math.isfinite(real_speller.suggest(["xqzvbn"])[0][0].probability if real_speller.suggest(["xqzvbn"])[0]
                         else 0.0)


@pytest.mark.real
def test_shipped_scorers_load_strictly():
    from charwise.encoders.shipped import SHIPPED_DIR
    from charwise.speller.speller import SHIPPED_SCORERS

    for language, name in SHIPPED_SCORERS.items():
        scorer = SpellScorer.from_pretrained(SHIPPED_DIR / name)
        assert scorer.config.language == language
        assert scorer.training_info["candidate_recall"] > 0.9
        # a scorer reads the features it was fitted on, by name: all of them, or (fitted before the
        # context features) the ones that existed then
        assert set(scorer.config.rank_features) <= set(RANK_FEATURES)
        assert scorer.reads_context == (language == "en" or tuple(scorer.config.rank_features) == RANK_FEATURES)
    assert NEIGHBOURS not in (EDITS, SOUNDS, WRITTEN)


# --- charwise correct ------------------------------------------------------------------------------------
def test_correct_command_refuses_bad_input_in_one_line(tmp_path, capsys):
    from charwise.cli import main

    for argv, message in ((["correct", str(tmp_path / "missing.txt")], "input file not found"),
                          (["correct", str(tmp_path)], "input is a directory, not a file"),
                          (["correct", "--text", "x", "--threshold", "2"], "--threshold"),
                          (["correct", "--text", "x", "--suggestions", "0"], "--suggestions"),
                          (["correct", "--text", "x", "--out", str(tmp_path)], "is a directory"),
                          (["speller", "train", "--out", str(tmp_path / "s"), "--words", "0"], "--words")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


@pytest.mark.real
@pytest.mark.slow
def test_correct_command_on_the_shipped_speller(tmp_path, capsys):
    from charwise.cli import main

    assert main(["correct", "--text", "We recieved the pacakge tomorow in High Wycombe", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["corrected"] == "We received the package tomorrow in High Wycombe"
    looked = {w["word"]: w for w in result["words"]}
    # a capitalised word inside a sentence is read too, and a name is left: its candidates are common words
    assert set(looked) == {"recieved", "pacakge", "tomorow", "Wycombe"} and not looked["Wycombe"]["changed"]
    assert looked["recieved"]["suggestions"][0]["word"] == "received" and looked["recieved"]["probability"] > 0.5
    text = tmp_path / "in.txt"
    text.write_text("one line\n\nWe recieve it\n", encoding="utf-8")
    assert main(["correct", str(text), "--plain", "--out", str(tmp_path / "out.txt")]) == 0
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "one line\n\nWe receive it\n"
    words = tmp_path / "words.txt"
    words.write_text("pacakge\n", encoding="utf-8")  # a user word is kept as written
    assert main(["correct", "--text", "the pacakge", "--plain", "--lexicon", str(words)]) == 0
    assert capsys.readouterr().out == "the pacakge\n"
    (tmp_path / "binary.bin").write_bytes(b"\xff\xfe\x00bad")
    assert main(["correct", str(tmp_path / "binary.bin")]) == 2
    assert "UTF-8" in capsys.readouterr().err
    # Spanish: missing accents are put back whenever the accented word ranks first, whatever the threshold
    assert main(["correct", "--language", "es", "--text", "El corazon de la cancion", "--plain"]) == 0
    assert capsys.readouterr().out == "El corazón de la canción\n"
    assert main(["correct", "--language", "es", "--text", "El corazon de la cancion", "--plain",
                 "--threshold", "1"]) == 0
    assert capsys.readouterr().out == "El corazón de la canción\n"


@pytest.mark.real
def test_the_sentence_decides(real_speller):
    # short frequent words that a scorer reading one word at a time cannot trust
    assert real_speller.scorer.reads_context
    texts = ["I lke it a lot", "you annd me", "I love oyu", "is this yur car"]
    assert [real_speller.correct(t).corrected for t in texts] == [
        "I like it a lot", "you and me", "I love you", "is this your car"]
    alone = real_speller.suggest(["lke"])[0][0].probability
    (entry,) = [w for w in real_speller.correct("I lke it").words if w.looked_at]
    assert entry.probability > alone  # its neighbours make the correction surer
    # the same word in two sentences is scored in each (the cache is keyed by the neighbours too)
    a, b = (next(w for w in real_speller.correct(t).words if w.looked_at) for t in ("I lke it", "the lke shore"))
    assert a.probability != b.probability

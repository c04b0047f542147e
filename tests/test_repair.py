"""The ``repair`` policy and ``charwise.repair``: only confident misspellings change, clean input is the
base model's exactly, word counts and offsets survive. Tiny speller and model; real weights marked ``real``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from charwise.errors import ConfigError
from charwise.hybrid.model import HybridModel
from charwise.hybrid.policies import Repair, RepairPolicy, get_policy
from charwise.speller import Speller, SpellerSettings
from charwise.speller.corrections import SPELLING
from charwise.speller.lexicon import USER, LexiconEntry
from charwise.speller.repair import repair, shared_speller
from charwise.teachers import Teacher
from charwise.words import split_words
from conftest import fitted_scorer, fresh_cache_unless_real, tiny_encoder, tiny_lexicon


@pytest.fixture(autouse=True)
def cache_dir(request, tmp_path, monkeypatch):
    fresh_cache_unless_real(request, tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def bert_teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


@pytest.fixture
def speller(make_encoder, wordpiece_teacher) -> Speller:
    encoder = tiny_encoder(make_encoder, wordpiece_teacher)
    # nasa: an acronym the lexicon knows (the shipped one does), left as written in capitals
    known = {"wycombe": LexiconEntry(2.7, USER, capitalised=True), "nasa": LexiconEntry(4.2, USER)}
    return Speller(tiny_lexicon(known), encoder, fitted_scorer(),
                   SpellerSettings(threshold=0.5, capital_threshold=0.5, neighbours=3, changes=SPELLING))


def hybrid(teacher: Teacher, policy, encoder=None) -> HybridModel:
    return HybridModel(teacher.model, teacher, encoder, policy).eval()


def test_policy_names_and_defaults():
    assert get_policy("repair").name == "repair" and get_policy("repair").language == "en"
    spanish = get_policy("repair:es")
    assert isinstance(spanish, RepairPolicy) and spanish.language == "es" and not spanish.needs_encoder
    assert get_policy("repair+oov:es").name == "repair+oov:es" and get_policy("repair+oov").needs_encoder
    for bad in ("repair:", "repair:xx", "repair+oov:klingon"):
        with pytest.raises(ConfigError):
            get_policy(bad)
    with pytest.raises(ConfigError, match="probability"):
        RepairPolicy("en", threshold=1.5)


def test_repair_reads_the_correction_and_keeps_positions(bert_teacher, speller):
    repaired = hybrid(bert_teacher, RepairPolicy(speller=speller))
    base = hybrid(bert_teacher, "none")
    words = ["we", "recieve", "the", "pakage", "from", "Wycombe"]
    fixed = ["we", "receive", "the", "package", "from", "Wycombe"]
    with torch.inference_mode():
        inputs = repaired.prepare([words])
        clean = base.prepare([fixed])
    assert inputs.repairs[0] == {1: Repair("recieve", "receive", pytest.approx(inputs.repairs[0][1].probability)),
                                 3: Repair("pakage", "package", pytest.approx(inputs.repairs[0][3].probability))}
    assert all(r.probability >= 0.5 for r in inputs.repairs[0].values())
    # exactly the clean input: same ids, same vectors, one span per written word
    assert torch.equal(inputs.input_ids, clean.input_ids)
    assert torch.equal(inputs.inputs_embeds, clean.inputs_embeds)
    assert len(inputs.word_spans[0]) == len(words) and inputs.pieces == clean.pieces
    assert not any(inputs.selected[0])


def test_tokenised_words_keep_a_cut_handle_whole(bert_teacher, speller):
    # words given without their spacing came from a tokenizer: "@ pakage" was the handle @pakage
    repaired = hybrid(bert_teacher, RepairPolicy(speller=speller))
    words = ["@", "pakage", "we", "recieve", "the", "pakage"]
    with torch.inference_mode():
        assert sorted(repaired.prepare([words]).repairs[0]) == [3, 5]
        spaced = repaired.prepare([words], [[False, True, True, True, True, True]])  # "@ pakage", written apart
    assert sorted(spaced.repairs[0]) == [1, 3, 5]


def test_clean_sentences_are_the_base_models_input(bert_teacher, speller):
    repaired = hybrid(bert_teacher, RepairPolicy(speller=speller))
    base = hybrid(bert_teacher, "none")
    texts = ["the house and the horse", "Stop here, said Wycombe.", "", "Jürgen 123 !!", "of Horsee and NASA"]
    with torch.inference_mode():
        a, b = repaired.prepare_texts(texts), base.prepare_texts(texts)
    assert a.repairs == [{}] * len(texts)
    assert torch.equal(a.inputs_embeds, b.inputs_embeds) and torch.equal(a.attention_mask, b.attention_mask)


def test_repair_plus_oov_builds_unsure_split_words_from_characters(bert_teacher, speller, make_encoder):
    encoder = make_encoder("cnn", info=bert_teacher.describe(), dim=bert_teacher.dim)
    model = hybrid(bert_teacher, RepairPolicy(speller=speller, chars_for_unsure=True), encoder)
    speller.settings.neighbours = 0  # "xqzvkwj" then has no candidate at all: unsure
    with torch.inference_mode():
        inputs = model.prepare([["recieve", "the", "xqzvkwj", "house"]])
    assert list(inputs.repairs[0]) == [0]
    assert inputs.selected[0] == [False, False, True, False]


def test_repair_plus_oov_lower_leaves_capitalised_unsure_words_their_pieces(bert_teacher, speller, make_encoder):
    encoder = make_encoder("cnn", info=bert_teacher.describe(), dim=bert_teacher.dim)
    policy = get_policy("repair+oov-lower")
    assert isinstance(policy, RepairPolicy) and policy.lower_only and policy.name == "repair+oov-lower"
    policy._speller = speller
    model = hybrid(bert_teacher, policy, encoder)
    speller.settings.neighbours = 0  # no candidate at all for these: unsure
    with torch.inference_mode():
        inputs = model.prepare([["Xqzvkwj", "said", "xqzvkwj"]])
    assert inputs.selected[0] == [False, False, True]  # the sentence start looks like a name: its pieces stay
    with pytest.raises(ConfigError, match="chars_for_unsure"):
        RepairPolicy(speller=speller, lower_only=True)


def test_threshold_decides(bert_teacher, speller):
    never = hybrid(bert_teacher, RepairPolicy(threshold=1.0, speller=speller))
    always = hybrid(bert_teacher, RepairPolicy(threshold=0.0, speller=speller))
    with torch.inference_mode():
        assert never.prepare([["recieve", "pakage"]]).repairs == [{}]
        assert set(always.prepare([["recieve", "pakage"]]).repairs[0]) == {0, 1}


def test_repair_function_keeps_offsets_and_every_other_character(speller):
    texts = ["  recieve\tthe  pakage ", "", "Wycombe said: 🙂 naïve", "here \ud800 stop", "x" * 3000]
    results = repair(texts, speller=speller)
    assert [r.text for r in results] == texts
    assert results[0].corrected == "  receive\tthe  package "
    for text, result in zip(texts, results):
        assert [w.word for w in result.words] == split_words(text).words
        assert all(text[w.start : w.end] == w.word for w in result.words)
    assert [r.corrected for r in results[1:]] == texts[1:]
    assert repair(texts[:1], speller=speller, threshold=1.0)[0].corrected == texts[0]
    assert speller.threshold == 0.5  # a per-call threshold leaves the speller as it was
    with pytest.raises(TypeError, match="list of texts"):
        repair("recieve", speller=speller)
    with pytest.raises(TypeError, match="texts"):
        repair([b"bytes"], speller=speller)  # type: ignore[list-item]


def test_repair_workers_are_checked_before_any_process_starts(speller):
    for bad in (0, -2, True, 2.0):
        with pytest.raises(ConfigError, match="workers must be a positive integer"):
            repair(["recieve"], workers=bad)
    with pytest.raises(ConfigError, match="lives in this process only"):
        repair(["recieve"], speller=speller, workers=2)
    with pytest.raises(ConfigError, match="threshold"):
        repair(["recieve"], threshold=2, workers=2)
    with pytest.raises(ConfigError):
        repair(["recieve"], protect=["(unclosed"], workers=2)


@pytest.mark.real  # the shipped speller, loaded in two processes
def test_repair_on_two_workers_gives_what_one_process_gives():
    texts = ["I recieved teh pakage tomorow", "thanks @joejonas http://youtu.be/xi8qJ3IKK8U #theroom", "",
             "u dont no were their going", "naïve café Zürich", "The acommodation was grate.", "x" * 3000,
             "ACME-1234 recieve"] * 80  # three chunks: the processes start
    one = repair(texts, protect=["ACME-[0-9]+"])
    two = repair(iter(texts), protect=["ACME-[0-9]+"], workers=2)
    assert [r.corrected for r in two] == [r.corrected for r in one]
    assert [[(w.word, w.correction, w.start, w.end, w.kind) for w in r.words] for r in two] == \
        [[(w.word, w.correction, w.start, w.end, w.kind) for w in r.words] for r in one]
    # A worker runs one thread, this process as many as it has cores: the encoder's float32 sums of
    # `dim` products may add up in another order, each rounding by at most eps (float32)
    tolerance = shared_speller("en").encoder.dim * float(np.finfo(np.float32).eps)
    for a, b in zip(one, two):
        assert [w.probability for w in b.words] == pytest.approx([w.probability for w in a.words], abs=tolerance)
    assert one[0].corrected == "I received the package tomorrow"


def test_tagger_with_repair_keeps_one_label_per_written_word(bert_teacher, speller):
    """Repairs change words, never their number: word_index still maps every position to a written word."""
    model = hybrid(bert_teacher, RepairPolicy(speller=speller))
    sentences = [["recieve", "the", "pakage"], ["Stop", "here"], ["wierd"]]
    with torch.inference_mode():
        inputs = model.prepare(sentences)
    for b, words in enumerate(sentences):
        found = sorted(set(inputs.word_index[b].tolist()) - {-1})
        assert found == list(range(len(words)))


# --- the real English speller in front of all-MiniLM-L6-v2 -------------------------------------------
@pytest.mark.real
@pytest.mark.slow
def test_real_default_policy_leaves_clean_sentences_identical_and_repairs_misspelled():
    from charwise import SentenceEncoder

    default = SentenceEncoder("minilm")
    assert default.policy.name == "repair"
    base = SentenceEncoder("minilm", policy="none")
    clean = ["The hotel was great and the staff were friendly.", "Okrent met Jürgen in Falluja on Tuesday.",
             "lol ur so funny :) #blessed", "NASA and the UN signed it in 2019."]
    assert torch.equal(default.encode(clean), base.encode(clean))
    misspelled = ["I recieved the pakage yesterday.", "The accomodation was definately great."]
    fixed = ["I received the package yesterday.", "The accommodation was definitely great."]
    assert torch.allclose(default.encode(misspelled), base.encode(fixed), atol=1e-6)
    with torch.inference_mode():
        inputs = default.hybrid.prepare_texts(misspelled)
    assert [sorted((r.word, r.correction) for r in rep.values()) for rep in inputs.repairs] == [
        [("pakage", "package"), ("recieved", "received")], [("accomodation", "accommodation"),
                                                            ("definately", "definitely")]]


def test_loading_a_speller_leaves_the_random_generators_alone(monkeypatch):
    """A repair policy loads its speller lazily, mid-training: a resumed run must draw the same numbers."""
    import random

    import numpy as np

    import charwise.speller.loading as loading

    def consuming(cls, *args):
        torch.rand(3), random.random(), np.random.rand()
        return "speller"

    monkeypatch.setattr(loading, "_parts", consuming)  # what loading builds: a stand-in that draws numbers

    def draws():
        return float(torch.rand(1)), random.random(), float(np.random.rand())

    torch.manual_seed(0), random.seed(0), np.random.seed(0)
    expected = draws()
    torch.manual_seed(0), random.seed(0), np.random.seed(0)
    assert Speller.load("en") == "speller"
    assert draws() == expected

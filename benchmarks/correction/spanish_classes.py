"""Word classes for reading a Spanish word's neighbours, without a tagged corpus: the closed classes
(articles and determiners, prepositions, pronouns, conjunctions, common adverbs: a grammar's lists)
and, for every other word, verb or not from simplemma's form -> lemma table (a form of a lemma in
``-ar``, ``-er`` or ``-ir`` with at least :data:`VERB_FORMS` forms, as a verb has: ``tiene`` ->
``tener``; ``lugar`` and ``mujer`` have two). Words are read without their accents, as the accent
model reads its neighbours, each taking the class of its most frequent spelling (``tenia``:
``tenía``, a verb, not ``tenia``, the tapeworm).

    classes = spanish_classes(vocabulary)      # a charwise.speller.word_classes.WordClasses
    classes("tiene"), classes("gimnasio"), classes("en")    # 'VERB', 'NOUN', 'ADP'
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from charwise.speller.word_classes import WordClasses

#: the closed classes, accents left out (the model reads ``él`` as ``el``: each folded word takes its
#: most frequent class, so ``el`` is an article, ``que`` a conjunction)
CLOSED = {
    "DET": "el la los las lo un una unos unas este esta estos estas ese esa esos esas aquel aquella aquellos "
           "aquellas mi mis tu tus su sus nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras "
           "al del cada otro otra otros otras todo toda todos todas algun alguna algunos algunas ningun ninguna",
    "ADP": "a ante bajo con contra de desde en entre hacia hasta para por segun sin sobre tras durante mediante",
    "PRON": "yo ella ello nosotros nosotras vosotros vosotras ellos ellas me te se nos os le les ti conmigo "
            "contigo consigo usted ustedes alguien nadie algo nada quien quienes",
    "CCONJ": "y e o u ni pero sino",
    "SCONJ": "que porque aunque pues cuando como donde si mientras",
    "ADV": "no ya muy mas menos tambien tampoco siempre nunca jamas aqui alli ahi asi bien mal hoy ayer luego "
           "despues antes entonces todavia aun casi",
}
VERB_FORMS = 10  # a lemma with fewer forms in the table is no verb (a noun has two: lugar, lugares)


def spanish_classes(vocabulary: Iterable[str]) -> WordClasses:
    """The classes of ``vocabulary`` (words read without their accents) and the suffixes they teach."""
    from charwise.speller.frequencies import zipf_frequency
    from charwise.speller.lexicon import _lemma_table, strip_accents
    from charwise.speller.word_classes import WordClasses

    lemmas = _lemma_table("es")
    forms_of = Counter(strip_accents(lemma) for lemma in lemmas.values())
    spellings: dict[str, list[str]] = {}
    for form in lemmas:
        spellings.setdefault(strip_accents(form), []).append(form)
    counts: dict[str, Counter[str]] = {w: Counter({tag: 1}) for tag, words in CLOSED.items() for w in words.split()}
    for word in set(vocabulary):
        if word in counts or not word.isalpha() or word not in spellings:
            continue
        form = max(spellings[word], key=lambda f: zipf_frequency(f, "es"))
        lemma = strip_accents(lemmas[form])
        verb = lemma.endswith(("ar", "er", "ir")) and forms_of[lemma] >= VERB_FORMS
        counts[word] = Counter({"VERB" if verb else "NOUN": 1})
    return WordClasses.from_counts(counts)

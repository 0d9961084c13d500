"""Refusal messages in the question's language, and language detection.

Languages shipped: en, de, fr, es, nl, tr, zh. Anything else, or a question
too short to tell, falls back to English.
"""

from __future__ import annotations

import copy
import functools
import re

from abstain.records import RefusalReason

LANGUAGES = ("en", "de", "fr", "es", "nl", "tr", "zh")

# A refusal message is the base sentence for the language plus, where the
# reason names something, a short detail.
_BASE = {
    "en": "I don't have enough information in the documents to answer this.",
    "de": "Zu dieser Frage habe ich in den Dokumenten nicht genügend Informationen.",
    "fr": "Je n'ai pas assez d'informations dans les documents pour répondre à cette question.",
    "es": "No tengo suficiente información en los documentos para responder a esto.",
    "nl": "Ik heb niet genoeg informatie in de documenten om dit te beantwoorden.",
    "tr": "Bu soruyu yanıtlamak için belgelerde yeterli bilgi bulunmuyor.",
    "zh": "文档中没有足够的信息来回答这个问题。",
}
_NOT_FOUND = {
    "en": "{entity} was not found in the documents.",
    "de": "{entity} wurde in den Dokumenten nicht gefunden.",
    "fr": "{entity} est introuvable dans les documents.",
    "es": "{entity} no aparece en los documentos.",
    "nl": "{entity} komt niet voor in de documenten.",
    "tr": "{entity} belgelerde bulunamadı.",
    "zh": "文档中找不到 {entity}。",
}
_INVALID = {
    "en": "The question is empty or could not be read.",
    "de": "Die Frage ist leer oder nicht lesbar.",
    "fr": "La question est vide ou illisible.",
    "es": "La pregunta está vacía o no se puede leer.",
    "nl": "De vraag is leeg of onleesbaar.",
    "tr": "Soru boş veya okunamıyor.",
    "zh": "问题为空或无法读取。",
}
_TOO_LONG = {
    "en": "The question is too long ({n} characters; the limit is {limit}).",
    "de": "Die Frage ist zu lang ({n} Zeichen; erlaubt sind {limit}).",
    "fr": "La question est trop longue ({n} caractères ; la limite est {limit}).",
    "es": "La pregunta es demasiado larga ({n} caracteres; el límite es {limit}).",
    "nl": "De vraag is te lang ({n} tekens; de limiet is {limit}).",
    "tr": "Soru çok uzun ({n} karakter; sınır {limit}).",
    "zh": "问题太长（{n} 个字符，上限为 {limit}）。",
}
_UNSUPPORTED = {
    "en": "The documents do not support a reliable answer to this.",
    "de": "Die Dokumente stützen keine verlässliche Antwort darauf.",
    "fr": "Les documents ne permettent pas de donner une réponse fiable.",
    "es": "Los documentos no respaldan una respuesta fiable.",
    "nl": "De documenten ondersteunen geen betrouwbaar antwoord hierop.",
    "tr": "Belgeler buna güvenilir bir yanıt vermeyi desteklemiyor.",
    "zh": "文档不足以支持可靠的回答。",
}

_LLM_ERROR = {
    "en": "The language model could not be reached, so no answer was written.",
    "de": "Das Sprachmodell war nicht erreichbar; es wurde keine Antwort geschrieben.",
    "fr": "Le modèle de langage est injoignable ; aucune réponse n'a été rédigée.",
    "es": "No se pudo contactar con el modelo de lenguaje; no se redactó ninguna respuesta.",
    "nl": "Het taalmodel was niet bereikbaar, dus er is geen antwoord geschreven.",
    "tr": "Dil modeline ulaşılamadı; bu yüzden yanıt yazılmadı.",
    "zh": "无法连接语言模型，因此没有生成回答。",
}


_NOT_IN_EVIDENCE = {
    "en": "{entity} appears in the documents, but not in the passages about this question.",
    "de": "{entity} kommt in den Dokumenten vor, aber nicht in den Passagen zu dieser Frage.",
    "fr": "{entity} figure dans les documents, mais pas dans les passages sur cette question.",
    "es": "{entity} aparece en los documentos, pero no en los pasajes sobre esta pregunta.",
    "nl": "{entity} komt voor in de documenten, maar niet in de passages over deze vraag.",
    "tr": "{entity} belgelerde geçiyor, ancak bu soruyla ilgili bölümlerde geçmiyor.",
    "zh": "文档中出现了 {entity}，但与此问题相关的段落中没有。",
}
_MISSING_TERMS = {
    "en": "The passages closest to this question do not mention: {terms}.",
    "de": "Die passendsten Passagen erwähnen Folgendes nicht: {terms}.",
    "fr": "Les passages les plus proches de cette question ne mentionnent pas : {terms}.",
    "es": "Los pasajes más cercanos a esta pregunta no mencionan: {terms}.",
    "nl": "De passages die het dichtst bij deze vraag liggen, noemen niet: {terms}.",
    "tr": "Bu soruya en yakın bölümler şunlardan söz etmiyor: {terms}.",
    "zh": "与此问题最接近的段落没有提到：{terms}。",
}
_TYPE_MISSING = {
    "en": "The documents cover this topic, but none of their passages states the {kind} asked for.",
    "de": "Die Dokumente behandeln das Thema, aber keine Passage nennt das gefragte {kind}.",
    "fr": "Les documents traitent ce sujet, mais aucun passage ne donne {kind} demandé(e).",
    "es": "Los documentos tratan el tema, pero ningún pasaje indica {kind} que se pide.",
    "nl": "De documenten behandelen dit onderwerp, maar geen passage noemt de gevraagde {kind}.",
    "tr": "Belgeler bu konuyu ele alıyor, ancak hiçbir bölüm sorulan {kind} bilgisini vermiyor.",
    "zh": "文档涉及这个主题，但没有任何段落给出所问的{kind}。",
}
_UNANSWERABLE = {
    "en": "The documents cover this topic, but the passages I read do not answer this question.",
    "de": "Die Dokumente behandeln das Thema, aber die gelesenen Passagen beantworten diese "
          "Frage nicht.",
    "fr": "Les documents traitent ce sujet, mais les passages lus ne répondent pas à cette "
          "question.",
    "es": "Los documentos tratan el tema, pero los pasajes leídos no responden a esta pregunta.",
    "nl": "De documenten behandelen dit onderwerp, maar de gelezen passages beantwoorden deze "
          "vraag niet.",
    "tr": "Belgeler bu konuyu ele alıyor, ancak okunan bölümler bu soruyu yanıtlamıyor.",
    "zh": "文档涉及这个主题，但读到的段落没有回答这个问题。",
}
_REFERS = {
    "en": "The question refers to “{reference}” without saying what that is. Ask it again "
          "naming what you mean.",
    "de": "Die Frage verweist mit „{reference}“ auf etwas, ohne es zu nennen. Bitte fragen "
          "Sie noch einmal und nennen Sie, was Sie meinen.",
    "fr": "La question renvoie à « {reference} » sans dire de quoi il s’agit. Reformulez-la "
          "en nommant ce dont vous parlez.",
    "es": "La pregunta se refiere a «{reference}» sin decir qué es. Vuelva a preguntar "
          "nombrando lo que quiere decir.",
    "nl": "De vraag verwijst naar ‘{reference}’ zonder te zeggen wat dat is. Stel de vraag "
          "opnieuw en noem waar het over gaat.",
    "tr": "Soru, ne olduğunu söylemeden “{reference}” ifadesine atıfta bulunuyor. Neyi "
          "kastettiğinizi belirterek yeniden sorun.",
    "zh": "问题用“{reference}”指代某物，但没有说明是什么。请说明所指对象后再问一次。",
}
_ASKS_NOTHING = {
    "en": "There is nothing here to look up in the documents: ask about something in them.",
    "de": "Hier gibt es nichts in den Dokumenten nachzuschlagen: Fragen Sie nach etwas, das "
          "darin steht.",
    "fr": "Il n’y a rien ici à chercher dans les documents : posez une question sur leur "
          "contenu.",
    "es": "Aquí no hay nada que buscar en los documentos: pregunte por algo que contengan.",
    "nl": "Hier valt niets in de documenten op te zoeken: vraag naar iets wat erin staat.",
    "tr": "Burada belgelerde aranacak bir şey yok: içlerindeki bir şeyi sorun.",
    "zh": "这里没有可以在文档中查找的内容：请询问文档里的内容。",
}
_CLARIFY = {
    "en": "Could you clarify what you mean by “{term}”?",
    "de": "Könnten Sie erläutern, was Sie mit „{term}“ meinen?",
    "fr": "Pourriez-vous préciser ce que vous entendez par « {term} » ?",
    "es": "¿Podría aclarar qué quiere decir con «{term}»?",
    "nl": "Kunt u verduidelijken wat u bedoelt met ‘{term}’?",
    "tr": "“{term}” ile ne demek istediğinizi açıklayabilir misiniz?",
    "zh": "您能说明一下“{term}”是什么意思吗？",
}
"""``unknown_term``: a term neither the vocabulary nor the documents know (abstain.terminology)."""
_DID_YOU_MEAN = {
    "en": "Known terms close to it: {terms}.",
    "de": "Bekannte Begriffe in der Nähe: {terms}.",
    "fr": "Termes connus proches : {terms}.",
    "es": "Términos conocidos parecidos: {terms}.",
    "nl": "Bekende termen die erop lijken: {terms}.",
    "tr": "Buna yakın bilinen terimler: {terms}.",
    "zh": "相近的已知术语：{terms}。",
}
_KINDS = {
    "date": {"en": "date or time", "de": "Datum", "fr": "la date", "es": "la fecha",
             "nl": "datum", "tr": "tarih", "zh": "日期或时间"},
    "number": {"en": "number", "de": "Zahl", "fr": "le nombre", "es": "el número",
               "nl": "aantal", "tr": "sayı", "zh": "数字"},
    "name": {"en": "name", "de": "Name", "fr": "le nom", "es": "el nombre", "nl": "naam",
             "tr": "isim", "zh": "名称"},
    "version": {"en": "version", "de": "Version", "fr": "la version", "es": "la versión",
                "nl": "versie", "tr": "sürüm", "zh": "版本"},
}


def refusal_message(reason: str, language: str, **fields: object) -> str:
    """The human message of a refusal; ``entity``, ``terms`` and ``kind`` fill in the detail
    for ``unknown_entity`` / ``entity_not_in_evidence``, ``low_coverage`` and
    ``answer_type_missing``; ``term`` (and ``near``, the known terms close to it) make the
    clarifying question of ``unknown_term``; ``reference`` the ``needs_clarification`` of a
    question that refers to what it does not name, ``nothing`` that of a message that names
    nothing at all ("thanks!")."""
    lang = language if language in LANGUAGES else "en"
    if reason == RefusalReason.UNKNOWN_ENTITY and fields.get("entity"):
        return f"{_NOT_FOUND[lang].format(**fields)} {_BASE[lang]}"
    if reason == RefusalReason.ENTITY_NOT_IN_EVIDENCE and fields.get("entity"):
        return f"{_NOT_IN_EVIDENCE[lang].format(**fields)} {_BASE[lang]}"
    if reason == RefusalReason.LOW_COVERAGE and fields.get("terms"):
        said = _MISSING_TERMS[lang].format(**fields).replace("….", "…").replace("…。", "…")
        return f"{said} {_BASE[lang]}"
    if reason == RefusalReason.ANSWER_TYPE_MISSING:
        kind = _KINDS.get(str(fields.get("kind")), _KINDS["number"])[lang]
        return _TYPE_MISSING[lang].format(kind=kind)
    if reason == RefusalReason.UNANSWERABLE:
        return _UNANSWERABLE[lang]
    if reason == RefusalReason.UNKNOWN_TERM and fields.get("term"):
        question = _CLARIFY[lang].format(term=fields["term"])
        near = fields.get("near")
        return f"{question} {_DID_YOU_MEAN[lang].format(terms=near)}" if near else question
    if reason == RefusalReason.INVALID_QUESTION:
        return _INVALID[lang]
    if reason == RefusalReason.NEEDS_CLARIFICATION and fields.get("reference"):
        return _REFERS[lang].format(**fields)
    if reason == RefusalReason.NEEDS_CLARIFICATION and fields.get("nothing"):
        return _ASKS_NOTHING[lang]
    if reason == RefusalReason.QUESTION_TOO_LONG:
        return _TOO_LONG[lang].format(**fields)
    if reason in (RefusalReason.UNSUPPORTED, RefusalReason.VERIFICATION_FAILED,
                  RefusalReason.LOW_FAITHFULNESS, RefusalReason.NOT_RELEVANT):
        return _UNSUPPORTED[lang]
    if reason == RefusalReason.LLM_ERROR:
        return _LLM_ERROR[lang]
    return _BASE[lang]


def clarified_term(message: str) -> str | None:
    """The term an ``unknown_term`` message asked about (in any shipped language), so that
    the user's reply to it can be read as the answer to that question; None otherwise."""
    for template in _CLARIFY.values():
        head, _, tail = template.partition("{term}")
        match = re.search(re.escape(head) + r"(.+?)" + re.escape(tail), message)
        if match:
            return match.group(1)
    return None


_CJK = re.compile(r"[\u4e00-\u9fff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
"""Hiragana and katakana: Japanese, which abstain does not speak (English then)."""


PLAUSIBLE = 0.2
"""The language chosen among :data:`LANGUAGES` must be at least this probable among all the
identifier knows: Norwegian is not read as Dutch, nor Italian as Spanish, just because those
are the nearest shipped languages (a Dutch question that could be Afrikaans stays Dutch)."""


@functools.lru_cache(maxsize=2)
def _identifier(shipped_only: bool) -> object:
    """py3langid's identifier over every language it knows, or restricted to
    :data:`LANGUAGES`; the model file is read once for both (half a second)."""
    if shipped_only:
        ident = copy.copy(_identifier(False))
        # set_languages makes new arrays: the full model stays as it is
        ident.set_languages(list(LANGUAGES))  # type: ignore[attr-defined]
        return ident
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str, *, min_probability: float = 0.6) -> str:
    """ISO 639-1 code among :data:`LANGUAGES`; English when unsure, and for a language abstain
    does not speak."""
    sample = text[:1000]
    if len(_CJK.findall(sample)) >= 2:
        return "en" if _KANA.search(sample) else "zh"  # Japanese writes kana beside them
    if len(re.findall(r"\w", sample)) < 8:
        return "en"
    lang, prob = _identifier(True).classify(sample)  # type: ignore[attr-defined]
    if prob < min_probability:
        return "en"
    anywhere = dict(_identifier(False).rank(sample))  # type: ignore[attr-defined]
    return str(lang) if anywhere.get(lang, 0.0) >= PLAUSIBLE else "en"

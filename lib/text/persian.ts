/**
 * The one place Persian text is normalised, FOR COMPARISON AND HASHING ONLY: deduplicating questions, matching
 * keywords, building cache keys. Models, judges and stored records always see the raw text. Pure functions;
 * no packages (`@persian-tools/persian-tools`' `toPersianChars` rewrites ordinary heh ه, so it is not used).
 * @module
 */

/** Arabic-Indic (U+0660–0669) and Extended Arabic-Indic, i.e. Persian (U+06F0–06F9), digits. */
const NON_ASCII_DIGITS = /[\u0660-\u0669\u06F0-\u06F9]/g;

/**
 * Characters removed outright: harakat and other Arabic combining marks (U+064B–065F, incl. madda and hamza
 * above/below when not composed), superscript alef (U+0670), tatweel (U+0640), ZWNJ (U+200C), ZWJ (U+200D),
 * and invisible direction / format marks (LRM, RLM, ALM U+061C, U+202A–202E, U+2066–2069, BOM U+FEFF).
 */
const REMOVED = /[\u064B-\u065F\u0670\u0640\u200C\u200D\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069\uFEFF]/g;

/** Arabic Presentation Forms-A and -B (contextual glyphs and ligatures, common in text taken from PDFs). */
const PRESENTATION_FORMS = /[\uFB50-\uFDFF\uFE70-\uFEFE]+/g;

/** Arabic letter forms mapped to their Persian twins: yeh ي and alef maksura ى → ی, kaf ك → ک. */
const LETTER_MAP: Readonly<Record<string, string>> = {
  "\u064A": "\u06CC",
  "\u0649": "\u06CC",
  "\u0643": "\u06A9",
};

/** The letters of {@linkcode LETTER_MAP}. */
const MAPPED_LETTERS = /[\u064A\u0649\u0643]/g;

/** Verb prefixes می / نمی written as a separate word before the next word ("می خواهم"). */
const SPACED_PREFIX = /(?<![\p{L}\p{M}])(ن?می) (?=\p{L})/gu;

/** Plural suffixes ها / های / هایی written as a separate word after a word ("کتاب ها"). */
const SPACED_SUFFIX = /(?<=\p{L}) (هایی|های|ها)(?![\p{L}\p{M}])/gu;

/** Returns `text` with Arabic-Indic and Persian digits replaced by ASCII 0–9; nothing else changes. */
export function toAsciiDigits(text: string): string {
  return text.replace(NON_ASCII_DIGITS, (d) => {
    const code = d.charCodeAt(0);
    return String(code - (code >= 0x06f0 ? 0x06f0 : 0x0660));
  });
}

/**
 * Returns the normal form of Persian `text` used for comparison and hashing (never shown to a model):
 *
 * 1. Arabic presentation forms (U+FB50–FDFF, U+FE70–FEFE) are folded to plain letters (their NFKC form), then
 *    the whole text is put in Unicode NFC (so آ typed as ا + madda is one character and survives step 2).
 * 2. Removes harakat and Arabic combining marks U+064B–065F, superscript alef U+0670, tatweel U+0640, and the
 *    invisible characters ZWNJ, ZWJ, LRM, RLM, ALM, bidi embeddings/isolates and BOM.
 * 3. Arabic yeh ي (U+064A) and alef maksura ى (U+0649) → Persian yeh ی (U+06CC); Arabic kaf ك (U+0643) →
 *    keheh ک (U+06A9); Arabic-Indic and Persian digits → ASCII ({@linkcode toAsciiDigits}).
 * 4. Whitespace runs (including newlines and no-break spaces) → one space; trimmed.
 * 5. ZWNJ rule: ZWNJ is a word-internal joiner, so it is simply deleted ("می‌خواهم" → "میخواهم"), never turned
 *    into a space. A plain space is deleted only in the two commonest places where Persian writers put a space
 *    instead of a ZWNJ: after a stand-alone verb prefix می / نمی followed by a letter ("می خواهم",
 *    "نمی دانم"), and before a stand-alone plural suffix ها / های / هایی ("کتاب ها", "بیماری های"). So
 *    "می‌خواهم", "می خواهم" and "میخواهم" share one form. Other spaced affixes (تر, ترین, ای, اند …) are
 *    left alone because the spaced forms are also separate words (تر "wet").
 * 6. NFC again (deleting a mark or ZWNJ can bring a base letter next to a combining mark).
 *
 * Left alone on purpose: ordinary heh ه (U+0647) in every position, teh marbuta ة and heh with yeh above ۀ
 * (mapping them is ambiguous: ة may stand for ه or ت), yeh with hamza ئ, alef forms آ أ إ, punctuation
 * (Arabic comma ، and question mark ؟ included), Latin text and case. Note that "خانهٔ" (heh + combining hamza,
 * removed in step 2) becomes "خانه" while "خانۀ" keeps its ۀ. Idempotent: normalising twice equals once.
 */
export function normalizePersian(text: string): string {
  const composed = text.replace(PRESENTATION_FORMS, (forms) => forms.normalize("NFKC")).normalize("NFC");
  const mapped = toAsciiDigits(composed.replace(REMOVED, "").replace(MAPPED_LETTERS, (c) => LETTER_MAP[c]));
  return mapped
    .replace(/\s+/g, " ")
    .trim()
    .replace(SPACED_PREFIX, "$1")
    .replace(SPACED_SUFFIX, "$1")
    .normalize("NFC");
}

/**
 * Returns the key under which two Persian texts count as the same (e.g. duplicate questions):
 * NFKC first (folds Arabic presentation forms from PDFs, full-width Latin, ligatures), then
 * {@linkcode normalizePersian}, lower-casing (Latin and other cased scripts), every punctuation character
 * (Unicode \p{P}, e.g. ، ؟ « » . - ") replaced by a space, and {@linkcode normalizePersian} again, which collapses
 * the spaces. Symbols (\p{S}: + < = ±) stay. Idempotent: the key of a key is the key itself.
 */
export function persianKey(text: string): string {
  const folded = normalizePersian(text.normalize("NFKC")).toLowerCase().replace(/\p{P}/gu, " ");
  return normalizePersian(folded.normalize("NFKC"));
}

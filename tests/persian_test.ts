import { assert, assertEquals } from "@std/assert";
import { normalizePersian, persianKey, toAsciiDigits } from "../lib/text/persian.ts";
import { mulberry32, seedFrom } from "../lib/stats/rng.ts";

const ZWNJ = "\u200C";
const HEH = "\u0647";

/** Returns how often `char` occurs in `text`. */
function count(text: string, char: string): number {
  return [...text].filter((c) => c === char).length;
}

Deno.test("toAsciiDigits maps Persian and Arabic-Indic digits and nothing else", () => {
  assertEquals(toAsciiDigits("۰۱۲۳۴۵۶۷۸۹"), "0123456789");
  assertEquals(toAsciiDigits("٠١٢٣٤٥٦٧٨٩"), "0123456789");
  assertEquals(toAsciiDigits("۳۵"), "35");
  assertEquals(toAsciiDigits("سن: ۳۵ سال، ٤٢ kg"), "سن: 35 سال، 42 kg");
  // Letters are not its business: Arabic yeh and kaf, ZWNJ and spacing stay.
  assertEquals(toAsciiDigits("علي كتاب" + ZWNJ + " ۷"), "علي كتاب" + ZWNJ + " 7");
});

Deno.test("normalizePersian maps Arabic yeh, alef maksura and kaf to the Persian letters", () => {
  assertEquals(normalizePersian("\u064A"), "\u06CC");
  assertEquals(normalizePersian("\u0649"), "\u06CC");
  assertEquals(normalizePersian("\u0643"), "\u06A9");
  assertEquals(normalizePersian("علي"), "علی");
  assertEquals(normalizePersian("موسى"), "موسی");
  assertEquals(normalizePersian("كتاب"), "کتاب");
  // The Persian letters themselves stay.
  assertEquals(normalizePersian("\u06CC\u06A9"), "\u06CC\u06A9");
  // Yeh with hamza, teh marbuta and heh with yeh above are left alone (documented).
  assertEquals(normalizePersian("مسئله رحمة خانۀ"), "مسئله رحمة خانۀ");
});

Deno.test("normalizePersian maps both digit sets to ASCII", () => {
  assertEquals(normalizePersian("بیمار ۳۵ ساله، فشار ١٢٠/٨٠"), "بیمار 35 ساله، فشار 120/80");
});

Deno.test("normalizePersian removes harakat, superscript alef and tatweel; keeps آ", () => {
  assertEquals(normalizePersian("كَتَبَ"), "کتب"); // fatha
  assertEquals(normalizePersian("محمّد"), "محمد"); // shadda
  assertEquals(normalizePersian("حتماً"), "حتما"); // tanwin fath
  assertEquals(normalizePersian("رحمٰن"), "رحمن"); // superscript alef U+0670
  assertEquals(normalizePersian("مـــحمد"), "محمد"); // tatweel U+0640
  assertEquals(normalizePersian("خانهٔ"), "خانه"); // combining hamza above U+0654
  // NFC first: alef + combining madda is composed to آ (U+0622) before marks are removed.
  assertEquals(normalizePersian("\u0627\u0653ب"), "\u0622ب");
  assertEquals(normalizePersian("آب"), "آب");
});

Deno.test("normalizePersian keeps ordinary heh in initial, medial and final position", () => {
  for (const word of ["ه", "مهربان", "خانه", "هفته", "هوا"]) {
    assertEquals(normalizePersian(word), word);
    assertEquals(persianKey(word), word);
  }
  assertEquals(normalizePersian("خانه" + ZWNJ + "ها"), "خانهها");
  assertEquals(count(normalizePersian("خانه" + ZWNJ + "ها"), HEH), 2);
  assertEquals(count(persianKey("هر خانه‌ای مهربان است."), HEH), 3);
});

Deno.test("ZWNJ rule: ZWNJ, plain space and no space after می / نمی and before ها / های / هایی agree", () => {
  for (
    const [forms, expected] of [
      [["می" + ZWNJ + "خواهم", "می خواهم", "میخواهم", "می  " + ZWNJ + " خواهم"], "میخواهم"],
      [["نمی" + ZWNJ + "دانم", "نمی دانم", "نمیدانم"], "نمیدانم"],
      [["کتاب" + ZWNJ + "ها", "کتاب ها", "کتابها"], "کتابها"],
      [["بیماری" + ZWNJ + "های قلبی", "بیماری های قلبی", "بیماریهای قلبی"], "بیماریهای قلبی"],
      [["دارو" + ZWNJ + "هایی که", "دارو هایی که"], "داروهایی که"],
      [["مي" + ZWNJ + "خواهم", "مي خواهم"], "میخواهم"], // Arabic yeh in the prefix
    ] as const
  ) {
    for (const form of forms) assertEquals(normalizePersian(form), expected, form);
  }
  // ZWNJ is never turned into a space, and other spaces are kept.
  assertEquals(normalizePersian("خانه" + ZWNJ + "ای"), "خانهای");
  assertEquals(normalizePersian("خانه بزرگ"), "خانه بزرگ");
  assertEquals(normalizePersian("بزرگ تر"), "بزرگ تر"); // تر is also a word ("wet"): left spaced
  // "می" inside a word is no prefix; a ZWNJ before a space glues nothing.
  assertEquals(normalizePersian("کمی خوب"), "کمی خوب");
  assertEquals(normalizePersian("خانه" + ZWNJ + " کتاب"), "خانه کتاب");
  assertEquals(normalizePersian("می 5"), "می 5");
  assertEquals(normalizePersian("ها و هو"), "ها و هو"); // no word before: no suffix
});

Deno.test("normalizePersian collapses whitespace and removes invisible marks; keeps punctuation and Latin", () => {
  assertEquals(normalizePersian("  سلام \n\t دنیا\u00A0 "), "سلام دنیا");
  assertEquals(normalizePersian("\uFEFF\u200Fسلام\u200E\u200D"), "سلام");
  assertEquals(
    normalizePersian("آیا Aspirin 81mg مناسب است؟ بله، «حتما»."),
    "آیا Aspirin 81mg مناسب است؟ بله، «حتما».",
  );
  assertEquals(normalizePersian(""), "");
});

Deno.test("a sentence in Arabic letters and digits equals its Persian twin", () => {
  const arabic: string = "ميخواهم ٣ قرص ديكلوفناك بخورم؟ آيا براي كليه مشكلي ندارد؟";
  const persian: string = "می‌خواهم ۳ قرص دیکلوفناک بخورم؟ آیا برای کلیه مشکلی ندارد؟";
  assert(arabic !== persian);
  const expected = "میخواهم 3 قرص دیکلوفناک بخورم؟ آیا برای کلیه مشکلی ندارد؟";
  assertEquals(normalizePersian(arabic), expected);
  assertEquals(normalizePersian(persian), expected);
  assertEquals(persianKey(arabic), persianKey(persian));
});

Deno.test("persianKey lower-cases, drops punctuation, folds presentation forms", () => {
  assertEquals(persianKey("Aspirin، آیا؟"), "aspirin آیا");
  assertEquals(persianKey("COVID-19 «سلام»!"), "covid 19 سلام");
  assertEquals(persianKey("سلام،دنیا"), persianKey("سلام، دنیا"));
  assertEquals(persianKey("a+b < c"), "a+b < c"); // symbols (\p{S}) stay
  // Arabic presentation forms (kaf initial, teh medial, alef final, beh isolated), as extracted from PDFs.
  assertEquals(persianKey("\uFEDB\uFE98\uFE8E\uFE8F"), "کتاب");
  assertEquals(
    persianKey("آيا مصرف  ايبوپروفن در بارداري مجاز است ؟"),
    persianKey("آیا مصرف ایبوپروفن در بارداری مجاز است؟"),
  );
});

Deno.test("normalisation is pure: the raw input is unchanged and repeated calls agree", () => {
  const raw = "مي" + ZWNJ + "خواهم ٣ كتاب";
  const copy = `${raw}`;
  const once = normalizePersian(raw);
  assertEquals(raw, copy);
  assertEquals(normalizePersian(raw), once);
  assertEquals(persianKey(raw), persianKey(copy));
});

/** Characters the property test draws from: Persian, Arabic variants, marks, digits, spaces, joiners, Latin. */
const ALPHABET = [
  ..."مینهاکبتخوآ",
  ..."يىكة",
  "\u06C0", // ۀ
  "\u0627", // alef (composes with madda)
  "\u064E", // fatha
  "\u0651", // shadda
  "\u0653", // madda above
  "\u0654", // hamza above
  "\u0670", // superscript alef
  "\u0640", // tatweel
  "\u200C", // ZWNJ
  "\u200D", // ZWJ
  "\u200F", // RLM
  " ",
  " ",
  " ",
  "\n",
  "\u00A0",
  ..."۳٣3",
  ..."،؟.-«",
  ..."AaeZ",
  "\u0301", // combining acute (composes with e)
  "\uFEF1", // yeh isolated presentation form
  "\uFEDB", // kaf initial presentation form
  "\u0130", // İ
  "\u03A3", // Σ
];

/** Returns `count` seeded random strings of 0–24 characters from {@linkcode ALPHABET}. */
function randomTexts(seed: string, count: number): string[] {
  const random = mulberry32(seedFrom(seed));
  return Array.from({ length: count }, () => {
    const length = Math.floor(random() * 25);
    return Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");
  });
}

Deno.test("property: normalizePersian and persianKey are idempotent and leave no mapped character", () => {
  const leftovers =
    /[\u064A\u0649\u0643\u0660-\u0669\u06F0-\u06F9\u064B-\u065F\u0670\u0640\u200C\u200D\u200F]/;
  for (const text of randomTexts("persian-property", 5000)) {
    const normal = normalizePersian(text);
    assertEquals(normalizePersian(normal), normal, JSON.stringify(text));
    assert(!leftovers.test(normal), JSON.stringify(text));
    assertEquals(normal, normal.trim(), JSON.stringify(text));
    assert(!/\s\s/.test(normal), JSON.stringify(text));
    assertEquals(normal, normal.normalize("NFC"), JSON.stringify(text));
    const key = persianKey(text);
    assertEquals(persianKey(key), key, JSON.stringify(text));
    assert(!/\p{P}/u.test(key), JSON.stringify(text));
    assertEquals(persianKey(normal), key, JSON.stringify(text));
    // Every heh of the NFC input survives into the normal form.
    assertEquals(count(normal, HEH), count(text.normalize("NFC"), HEH), JSON.stringify(text));
  }
});

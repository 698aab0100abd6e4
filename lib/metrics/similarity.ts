/**
 * Semantic similarity between an answer and a reference: cosine of embeddings from a provider's embeddings
 * endpoint, or, offline, cosine of character n-gram TF-IDF vectors (a lexical stand-in, labelled as such).
 * @module
 */
import { charTokens } from "../text/tokenize.ts";

/** Returns the cosine of two vectors (0 when either is all zeros). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`cosine: dimensions differ (${a.length} vs ${b.length})`);
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Returns the character 1- to `maxN`-grams of the letters and digits of `text`. */
function charNgramRange(text: string, maxN = 2): string[] {
  const chars = charTokens(text);
  const out: string[] = [];
  for (let n = 1; n <= maxN; n++) {
    for (let i = 0; i + n <= chars.length; i++) out.push(chars.slice(i, i + n).join(""));
  }
  return out;
}

/**
 * Character n-gram TF-IDF (1- and 2-grams by default). IDF is smoothed, ln((1 + N) / (1 + df)) + 1, over the
 * documents it was fitted on; n-grams never seen get the highest IDF.
 */
export class CharTfidf {
  readonly #df = new Map<string, number>();
  #docs = 0;

  /** Creates a vectoriser of 1- to `maxN`-grams. */
  constructor(readonly maxN = 2) {}

  /** Adds documents to the IDF statistics. */
  fit(documents: Iterable<string>): this {
    for (const doc of documents) {
      this.#docs++;
      for (const gram of new Set(charNgramRange(doc, this.maxN))) {
        this.#df.set(gram, (this.#df.get(gram) ?? 0) + 1);
      }
    }
    return this;
  }

  /** Returns the sparse TF-IDF vector of `text`. */
  vector(text: string): Map<string, number> {
    const tf = new Map<string, number>();
    for (const gram of charNgramRange(text, this.maxN)) tf.set(gram, (tf.get(gram) ?? 0) + 1);
    for (const [gram, count] of tf) {
      const idf = Math.log((1 + this.#docs) / (1 + (this.#df.get(gram) ?? 0))) + 1;
      tf.set(gram, count * idf);
    }
    return tf;
  }

  /** Returns the cosine of the TF-IDF vectors of `a` and `b`. */
  similarity(a: string, b: string): number {
    const va = this.vector(a);
    const vb = this.vector(b);
    let dot = 0, na = 0, nb = 0;
    for (const [gram, w] of va) {
      na += w * w;
      dot += w * (vb.get(gram) ?? 0);
    }
    for (const w of vb.values()) nb += w * w;
    return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
  }
}

/**
 * Interning of repeated values: a large data set or run store holds one instance of each text or list that its
 * records repeat.
 * @module
 */

/**
 * One instance of each value that many records repeat (a file's scenario codes, departments, difficulties and
 * option letters in order; a store's condition, scorer and judge names), so that a large set of samples or
 * scores does not hold a copy in each. The values are never changed.
 */
export class SharedValues {
  readonly #texts = new Map<string, string>();
  readonly #lists = new Map<string, string[]>();

  /** Returns the first instance of `text` seen. */
  text<T extends string | number | null | undefined>(text: T): T {
    if (typeof text !== "string") return text;
    const known = this.#texts.get(text);
    if (known !== undefined) return known as T;
    this.#texts.set(text, text);
    return text;
  }

  /** Returns the first instance of a list equal to `list` seen. */
  list(list: string[]): string[] {
    const key = list.join("\u0000");
    const known = this.#lists.get(key);
    if (known) return known;
    this.#lists.set(key, list);
    return list;
  }
}

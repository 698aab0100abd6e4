/**
 * Reading a run store's outputs and scores together, one sample at a time: both of the store's streaming
 * readers yield their rows ordered by sample id (SQLite's byte order, which is code-point order), so the two
 * streams are merged without holding either in memory.
 * @module
 */
import type { StoredOutput, StoredScore } from "../core/records.ts";

/** Compares two strings by code point (the order of their UTF-8 bytes, as SQLite sorts them). */
export function compareCodePoints(a: string, b: string): number {
  const x = a[Symbol.iterator](), y = b[Symbol.iterator]();
  for (;;) {
    const p = x.next(), q = y.next();
    if (p.done || q.done) return p.done && q.done ? 0 : p.done ? -1 : 1;
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** Yields consecutive records of one sample id as one group. */
export function* groupedBySample<T extends { sampleId: string }>(
  records: Iterable<T>,
): Generator<{ id: string; items: T[] }> {
  let current: { id: string; items: T[] } | undefined;
  for (const record of records) {
    if (current && current.id === record.sampleId) {
      current.items.push(record);
      continue;
    }
    if (current) yield current;
    current = { id: record.sampleId, items: [record] };
  }
  if (current) yield current;
}

/** One sample's stored outputs and scores (all conditions). */
export interface SampleRecords {
  /** Sample id. */
  id: string;
  /** Its outputs, one per condition it was asked in. */
  outputs: StoredOutput[];
  /** Its scores. */
  scores: StoredScore[];
}

/** Merges outputs and scores, both ordered by sample id, into one group per sample id, in that order. */
export function* recordsBySample(
  outputs: Iterable<StoredOutput>,
  scores: Iterable<StoredScore>,
): Generator<SampleRecords> {
  const a = groupedBySample(outputs)[Symbol.iterator]();
  const b = groupedBySample(scores)[Symbol.iterator]();
  let x = a.next(), y = b.next();
  while (!x.done || !y.done) {
    const order = x.done ? 1 : y.done ? -1 : compareCodePoints(x.value.id, y.value.id);
    if (order === 0) {
      yield { id: x.value!.id, outputs: x.value!.items, scores: y.value!.items };
      x = a.next();
      y = b.next();
    } else if (order < 0) {
      yield { id: x.value!.id, outputs: x.value!.items, scores: [] };
      x = a.next();
    } else {
      yield { id: y.value!.id, outputs: [], scores: y.value!.items };
      y = b.next();
    }
  }
}

/**
 * Seeded pseudo-random numbers, so every resample and perturbation is reproducible.
 * @module
 */
import { sha256Hex } from "../core/hash.ts";

/** Returns a mulberry32 generator: a function giving uniform floats in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => mulberry32Value(a = mulberry32Next(a));
}

/** mulberry32's next state after `state` (a 32-bit unsigned integer). */
export function mulberry32Next(state: number): number {
  return (state + 0x6d2b79f5) >>> 0;
}

/** mulberry32's number for the state `state` (already advanced by {@linkcode mulberry32Next}), in [0, 1). */
export function mulberry32Value(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Returns a 32-bit seed derived from any text (e.g. `"bootstrap:MK:usability"`). */
export function seedFrom(text: string): number {
  return parseInt(sha256Hex(text).slice(0, 8), 16);
}

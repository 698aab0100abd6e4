/**
 * Full-text search over a run's samples (lib/view/assets/search_terms.js says what is a word). The MiniSearch
 * index is built in workers, off the page's thread, so the page stays responsive while a large run is
 * indexed: the page loads the sample chunks for the questions, hands each results chunk still compressed to
 * one of the workers (each indexes its share), and asks every worker for the hits of a query. Indexing starts
 * when the search box is first used and is kept for the rest of the visit.
 * @module
 */
import { inflateText, loadChunk, loadPayload } from "./chunks.js";

/** Workers per run: the cores there are, at most four. */
const WORKERS = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2));
/** Chunks loaded at a time. */
const PARALLEL = 6;

let workerUrl;

/** Returns the Blob URL of the search worker's code (its compressed chunk, loaded once). */
async function searchWorkerUrl() {
  workerUrl ??= inflateText(await loadPayload("vendor/search-worker")).then((code) =>
    URL.createObjectURL(new Blob([code], { type: "text/javascript" }))
  );
  return await workerUrl;
}

/** Calls `use(name, i)` for every name, `parallel` at a time. */
async function eachName(names, parallel, use) {
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const i = next++;
      await use(names[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, names.length) }, worker));
}

/** The search of one run: its workers, how far indexing got, and queries. */
class RunSearch {
  constructor(run, rows) {
    this.run = run;
    this.rows = rows;
    this.done = 0;
    this.total = run.chunks.samples + run.chunks.results;
    this.listeners = new Set();
    this.waiting = new Map();
    this.queries = 0;
    this.ready = this.#build();
  }

  /** Calls `listener(done, total)` as indexing advances; returns the function that stops it. */
  onProgress(listener) {
    this.listeners.add(listener);
    listener(this.done, this.total);
    return () => this.listeners.delete(listener);
  }

  #advance() {
    this.done++;
    for (const listener of this.listeners) listener(this.done, this.total);
  }

  async #build() {
    const url = await searchWorkerUrl();
    this.workers = Array.from({ length: WORKERS }, () => {
      const worker = new Worker(url);
      worker.onmessage = (event) => this.#receive(event.data);
      return worker;
    });
    const { run, rows } = this;
    const questions = new Array(rows.ids.length);
    const sampleChunks = Array.from({ length: run.chunks.samples }, (_, k) => `${run.key}/s${k}`);
    await eachName(sampleChunks, PARALLEL, async (name) => {
      for (const sample of (await loadChunk(name)).samples) questions[sample.position] = sample.input;
      this.#advance();
    });
    const entries = Array.from({ length: run.chunks.results }, () => []);
    rows.ids.forEach((id, position) =>
      entries[rows.resultChunk[position]].push([id, position, questions[position] ?? ""])
    );
    this.indexed = new Promise((resolve) => (this.allIndexed = resolve));
    this.pendingChunks = run.chunks.results;
    if (this.pendingChunks === 0) this.allIndexed();
    const resultChunks = Array.from({ length: run.chunks.results }, (_, k) => `${run.key}/o${k}`);
    await eachName(resultChunks, PARALLEL, async (name, k) => {
      const payload = await loadPayload(name);
      this.workers[k % WORKERS].postMessage({ type: "chunk", payload, entries: entries[k] });
    });
    await this.indexed;
  }

  #receive(message) {
    if (message.type === "indexed") {
      this.#advance();
      if (--this.pendingChunks === 0) this.allIndexed();
    } else if (message.type === "hits") {
      const waiting = this.waiting.get(message.id);
      waiting.parts.push(message.positions);
      if (waiting.parts.length === WORKERS) {
        this.waiting.delete(message.id);
        waiting.resolve(new Set(waiting.parts.flatMap((p) => [...p])));
      }
    } else if (message.type === "error") {
      console.error(`search worker: ${message.message}`);
    }
  }

  /** Returns the positions of the samples matching `query`, once the index is built. */
  async search(query) {
    await this.ready;
    const id = ++this.queries;
    return await new Promise((resolve) => {
      this.waiting.set(id, { parts: [], resolve });
      for (const worker of this.workers) worker.postMessage({ type: "search", id, query });
    });
  }
}

const searches = new Map();

/** Returns the search of `run` (`rows` is its row index), starting to index it on first call. */
export function runSearch(run, rows) {
  if (!searches.has(run.key)) searches.set(run.key, new RunSearch(run, rows));
  return searches.get(run.key);
}

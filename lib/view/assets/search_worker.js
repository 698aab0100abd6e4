/**
 * A search worker: holds the MiniSearch index of a share of a run's samples, builds it from the results
 * chunks it is handed (base64 gzip, inflated here, off the page's thread) and answers queries with the
 * positions of the matching samples. `deno task view` bundles it apart and the page starts it from a Blob.
 *
 * Messages in: `{ type: "chunk", payload, entries }` (entries: `[id, position, question]` of the chunk's
 * samples), `{ type: "search", id, query }`. Out: `{ type: "indexed" }` per chunk, `{ type: "hits", id,
 * positions }` per query, `{ type: "error", message }` when a chunk or a query could not be handled.
 * @module
 */
import { createIndex, resultDocuments } from "./search_terms.js";

const index = createIndex();

/** Returns the text of gzip-compressed base64 `text`. */
async function inflate(text) {
  const bytes = Uint8Array.fromBase64
    ? Uint8Array.fromBase64(text)
    : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}

/** Work is done in arrival order, so a query waits for every chunk handed in before it. */
let queue = Promise.resolve();

self.onmessage = (event) => {
  const message = event.data;
  queue = queue.then(() => (message.type === "chunk" ? indexChunk(message) : search(message)));
};

/** Indexes one results chunk; says so even when it could not be read (with the reason). */
async function indexChunk(message) {
  try {
    const results = JSON.parse(await inflate(message.payload)).results;
    index.addAll(resultDocuments(results, message.entries));
  } catch (error) {
    self.postMessage({ type: "error", message: String(error?.message ?? error) });
  }
  self.postMessage({ type: "indexed" });
}

/** Answers a query with the positions of the matching samples (none when the query cannot be run). */
function search(message) {
  let positions;
  try {
    positions = Int32Array.from(index.search(message.query).map((hit) => hit.id));
  } catch (error) {
    self.postMessage({ type: "error", message: String(error?.message ?? error) });
    positions = new Int32Array(0);
  }
  self.postMessage({ type: "hits", id: message.id, positions }, [positions.buffer]);
}

/**
 * Loads the bundle's data files on demand. A page opened from file:// may not fetch files, so each file is a
 * classic script that calls `medevalView.chunk(name, payload)`; the payload is the meta object itself, or
 * base64 of gzip-compressed JSON, inflated here with DecompressionStream. Decoded chunks are cached (the most
 * recently used ones only, so a long session on a large run does not hold it all).
 * @module
 */

const CACHE_LIMIT = 48;
/** Decoded chunks (promises), most recently used last. */
const cache = new Map();
/** Scripts inserted and not yet registered: name → { resolve, reject }. */
const pending = new Map();

globalThis.medevalView = {
  /** Called by every data file: hands its payload to whoever loads it. */
  chunk(name, payload) {
    const waiter = pending.get(name);
    if (!waiter) return;
    pending.delete(name);
    waiter.resolve(payload);
  },
};

/** Returns the bytes of a base64 string. */
function fromBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Returns the text of gzip-compressed base64 `text`. */
export async function inflateText(text) {
  const stream = new Blob([fromBase64(text)]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

/** Inserts `data/<name>.js` and resolves with the payload it registers, as registered (not decoded, not cached). */
export function loadPayload(name) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = `data/${name}.js`;
    pending.set(name, { resolve, reject });
    script.onload = () => {
      script.remove();
      if (pending.has(name)) {
        pending.delete(name);
        reject(new Error(`data/${name}.js did not register its data`));
      }
    };
    script.onerror = () => {
      script.remove();
      pending.delete(name);
      reject(new Error(`data/${name}.js could not be loaded`));
    };
    document.head.append(script);
  });
}

/** Returns the decoded chunk `name` (`meta`, `r0/rows`, `r0/s3`, ...), loading it once. */
export function loadChunk(name) {
  const hit = cache.get(name);
  if (hit) {
    cache.delete(name);
    cache.set(name, hit);
    return hit;
  }
  const loading = loadPayload(name).then(async (payload) =>
    typeof payload === "string" ? JSON.parse(await inflateText(payload)) : payload
  );
  loading.catch(() => cache.delete(name));
  cache.set(name, loading);
  // The row indexes and meta stay; sample and results chunks are dropped oldest first.
  for (const key of cache.keys()) {
    if (cache.size <= CACHE_LIMIT) break;
    if (/\/[so]\d+$/.test(key)) cache.delete(key);
  }
  return loading;
}

/** Script chunks run so far, by name. */
const scripts = new Map();

/** Runs the compressed script chunk `name` (e.g. `vendor/plotly`) once. */
export function runScriptChunk(name) {
  if (!scripts.has(name)) {
    scripts.set(
      name,
      loadPayload(name).then(async (payload) => {
        const script = document.createElement("script");
        script.textContent = await inflateText(payload);
        document.head.append(script);
      }),
    );
  }
  return scripts.get(name);
}

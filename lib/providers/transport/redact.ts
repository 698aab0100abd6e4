/**
 * Keeps secrets out of logs, errors and stored files.
 * @module
 */

const secrets = new Set<string>();

/** Registers a secret (an API key) so that {@linkcode redact} hides it wherever it appears. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) secrets.add(secret);
}

/** Returns `text` with every registered secret and anything shaped like a bearer token or `sk-` key masked. */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("***");
  return out
    .replace(/\b(sk-[A-Za-z0-9_-]{3})[A-Za-z0-9_-]{8,}/g, "$1***")
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, "$1***");
}

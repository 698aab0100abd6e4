/**
 * Downloads the full public data sets for users who are online, checking each file's SHA-256.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { digestHex } from "../core/hash.ts";
import { projectPath } from "../core/fs.ts";

/** A public data file: where it comes from and what it must hash to. */
interface DownloadSpec {
  /** Source URL (pinned to a commit). */
  url: string;
  /** Expected SHA-256 of the file. */
  sha256: string;
  /** Where it is saved, relative to the project root. */
  path: string;
  /** Licence and origin note. */
  note: string;
}

/** Downloadable data sets by benchmark name. */
export const DOWNLOADS: Record<string, DownloadSpec> = {
  "llmeval-med": {
    url:
      "https://raw.githubusercontent.com/llmeval/LLMEval-Med/508516fafd288c896691442d657b4af619609535/dataset/dataset.json",
    sha256: "58b60a92c20be4c62644fd3e028670514b452d125152715e52f6a9268a68db90",
    path: "data/downloads/llmeval-med/dataset.json",
    note:
      "LLMEval-Med test set (667 questions), repository llmeval/LLMEval-Med; no licence file: evaluation use only",
  },
};

/**
 * Returns where the full data set of `name` is (or would be) saved, or, with `dataDir`, where it is in a folder
 * laid out the same way (`<dataDir>/<benchmark>/<file>`).
 */
export function downloadedPath(name: string, dataDir?: string): string {
  const path = DOWNLOADS[name].path;
  if (!dataDir) return projectPath(path);
  return `${dataDir.replace(/\/$/, "")}/${name}/${path.slice(path.lastIndexOf("/") + 1)}`;
}

/** Downloads the data set `name`, verifies its hash and saves it; returns the saved path. */
export async function downloadDataset(name: string): Promise<string> {
  const spec = DOWNLOADS[name];
  const response = await fetch(spec.url).catch((err) => {
    throw new ConfigError(
      `cannot reach ${new URL(spec.url).host} (${err.message}); download ${spec.url} by hand to ${spec.path}`,
    );
  });
  if (!response.ok) throw new ConfigError(`download of ${spec.url} failed: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const hash = await digestHex(bytes);
  if (hash !== spec.sha256) {
    throw new ConfigError(`downloaded file has SHA-256 ${hash}, expected ${spec.sha256}; not saved`);
  }
  const path = downloadedPath(name);
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(path, bytes);
  return path;
}

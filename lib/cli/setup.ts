/**
 * `deno task setup`: makes sure the machine has what the tests and the main job need — Jupyter with the Deno
 * kernel (notebooks) and Chromium with CJK fonts (figure export). Installs with apt when running as root;
 * otherwise stops with the exact command to run. Idempotent and quick when everything is there.
 * @module
 */
import { pathExists } from "../core/fs.ts";

/** Debian packages the project needs, with the command that proves each is present. */
export const APT_PACKAGES: { pkg: string; check: string }[] = [
  { pkg: "chromium", check: "/usr/bin/chromium" },
  { pkg: "fonts-noto-cjk", check: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc" },
  { pkg: "jupyter-nbconvert", check: "/usr/bin/jupyter-nbconvert" },
  { pkg: "jupyter-client", check: "/usr/bin/jupyter-kernelspec" },
  { pkg: "python3-nbclient", check: "/usr/lib/python3/dist-packages/nbclient" },
  { pkg: "python3-ipykernel", check: "/usr/lib/python3/dist-packages/ipykernel" },
];

async function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<boolean> {
  const status = await new Deno.Command(cmd, {
    args,
    env,
    stdout: "inherit",
    stderr: "inherit",
    stdin: "null",
  }).output();
  return status.success;
}

async function isRoot(): Promise<boolean> {
  try {
    const out = await new Deno.Command("id", { args: ["-u"], stdout: "piped" }).output();
    return new TextDecoder().decode(out.stdout).trim() === "0";
  } catch {
    return false;
  }
}

async function kernelInstalled(): Promise<boolean> {
  try {
    const out = await new Deno.Command("jupyter", {
      args: ["kernelspec", "list", "--json"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    if (!out.success) return false;
    const specs = JSON.parse(new TextDecoder().decode(out.stdout)).kernelspecs ?? {};
    const deno = specs.deno;
    if (!deno) return false;
    // The kernel must point at a Deno that still exists (npx caches can move).
    const kernel = JSON.parse(await Deno.readTextFile(`${deno.resource_dir}/kernel.json`));
    return await pathExists(kernel.argv?.[0] ?? "");
  } catch {
    return false;
  }
}

/** Installs what is missing; returns a process exit code. */
export async function setup(): Promise<number> {
  const missing: string[] = [];
  for (const { pkg, check } of APT_PACKAGES) if (!(await pathExists(check))) missing.push(pkg);
  if (missing.length) {
    const command =
      `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${
        missing.join(" ")
      }`;
    if (!(await isRoot())) {
      console.error(`setup: missing Debian packages ${missing.join(", ")}. Run as root:\n  ${command}`);
      return 1;
    }
    console.error(`setup: installing ${missing.join(", ")} with apt-get`);
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    if (!(await run("apt-get", ["update", "-q"], env))) {
      console.error(`setup: apt-get update failed; run by hand:\n  ${command}`);
      return 1;
    }
    if (!(await run("apt-get", ["install", "-y", "-q", "--no-install-recommends", ...missing], env))) {
      console.error(`setup: apt-get install failed; run by hand:\n  ${command}`);
      return 1;
    }
  }
  if (!(await kernelInstalled())) {
    console.error("setup: registering the Deno Jupyter kernel");
    if (!(await run(Deno.execPath(), ["jupyter", "--install", "--force"]))) {
      console.error(
        `setup: kernel registration failed; run by hand:\n  ${Deno.execPath()} jupyter --install`,
      );
      return 1;
    }
  }
  console.error("setup: Chromium, CJK fonts, Jupyter and the Deno kernel are ready");
  return 0;
}

if (import.meta.main) Deno.exit(await setup());

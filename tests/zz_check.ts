import { extractChoice } from "../lib/metrics/choice.ts";
let bad = 0, total = 0;
for (const f of Deno.args) {
  for (const line of (await Deno.readTextFile(f)).trim().split("\n")) {
    const item = JSON.parse(line);
    total++;
    const got = extractChoice(item.reply, item.labels ? [...item.labels] : undefined, item.options ?? {});
    const g = got.letters ? got.letters.join("") : null;
    if (g !== item.expected) {
      bad++;
      console.log(
        `EXP ${item.expected} GOT ${g} [${got.method}/${got.failure ?? ""}] ${item.note ?? ""}\n   ${
          JSON.stringify(item.reply).slice(0, 200)
        }`,
      );
    }
  }
}
console.log(`${total - bad}/${total}`);

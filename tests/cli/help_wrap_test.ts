/**
 * Help text wraps cleanly at 80 columns: no description paragraph leaves a word or two
 * stranded on a line of its own (the hard line breaks that caused it are gone), and the
 * README's CLI list names every command (issue 17) and only flags those commands offer.
 *
 * @module
 */

import assert from "node:assert/strict";
import { REPO_ROOT, runCapture } from "../helpers/cli.ts";

const COMMANDS = [
  ["serve"],
  ["lock"],
  ["tools", "call"],
  ["tools", "check"],
  ["tools", "list"],
  ["sweep"],
  ["artifact", "validate"],
  ["init"],
];

/** The description: the lines between `Usage:` and the first section heading. */
function description(help: string): string[] {
  const lines = help.split("\n");
  const start = lines.findIndex((l) => l.startsWith("Usage:")) + 2;
  const end = lines.findIndex((l, i) => i >= start && /^(Arguments|Options|Commands):/.test(l));
  return lines.slice(start, end).filter((l) => l.trim() !== "");
}

Deno.test("--help descriptions wrap without stranded words at 80 columns", async () => {
  for (const cmd of COMMANDS) {
    const r = await runCapture([...cmd, "--help"]);
    assert.equal(r.code, 0, cmd.join(" "));
    const desc = description(r.out);
    assert.ok(desc.length > 0, `${cmd.join(" ")}: no description`);
    // Every line but a paragraph's last is filled: a hard break left short lines before.
    desc.slice(0, -1).forEach((line, i) => {
      const next = desc[i + 1];
      const room = 80 - line.length;
      const firstWord = next.trim().split(/\s+/)[0];
      assert.ok(
        firstWord.length + 1 > room || line.endsWith(":") || line.endsWith("."),
        `${cmd.join(" ")}: "${line}" breaks early before "${firstWord}"`,
      );
    });
    for (const line of r.out.split("\n")) {
      assert.ok(line.length <= 80 || /^ {2,}\S/.test(line), `${cmd.join(" ")}: ${line}`);
    }
  }
});

Deno.test("the README's CLI list names every command", async () => {
  const r = await runCapture(["--help"]);
  const commands = r.out.slice(r.out.indexOf("Commands:"), r.out.indexOf("Example"));
  const names = commands.split("\n").filter((l) => /^ {2}[a-z]/.test(l))
    .map((l) => l.trim().split(/\s/)[0]).filter((n) => n !== "help");
  assert.ok(names.length >= 8, r.out);
  const readme = await Deno.readTextFile(`${REPO_ROOT}/README.md`);
  const block = readme.slice(readme.indexOf("## The CLI")).split("```")[1];
  for (const n of names) assert.match(block, new RegExp(`^toolhost ${n}\\b`, "m"), n);
});

Deno.test("every flag in the README's CLI list is one its command's --help offers", async () => {
  const readme = await Deno.readTextFile(`${REPO_ROOT}/README.md`);
  const block = readme.slice(readme.indexOf("## The CLI")).split("```")[1];
  const groups = ["tools", "artifact", "extensions", "audit", "policy"];
  let path: string[] = [];
  let checked = 0;
  for (const line of block.split("\n")) {
    const usage = line.split("#")[0];
    if (usage.startsWith("toolhost ")) {
      const words = usage.split(/\s+/);
      path = groups.includes(words[1]) ? words.slice(1, 3) : words.slice(1, 2);
    }
    const help = (await runCapture([...path, "--help"])).out;
    for (const flag of usage.match(/--[a-z][a-z-]*|(?<=\[)-[a-z]\b/g) ?? []) {
      assert.match(help, new RegExp(`(^|[\\s,])${flag}[\\s,]`, "m"), `${path.join(" ")} ${flag}`);
      checked++;
    }
  }
  assert.ok(checked >= 20, `only ${checked} flags found`);
});

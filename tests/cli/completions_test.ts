/**
 * `toolhost completions bash|zsh|fish`: scripts generated from the commander tree complete
 * commands, nested subcommands and options in the real shells (each shell that is not
 * installed is skipped with one line naming it).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { runCapture } from "../helpers/cli.ts";

function has(shell: string): boolean {
  try {
    execFileSync(shell, ["-c", "exit 0"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function script(shell: string): Promise<string> {
  const r = await runCapture(["completions", shell]);
  assert.equal(r.code, 0, r.err);
  const dir = Deno.makeTempDirSync({ prefix: "completions_" });
  writeFileSync(`${dir}/script`, r.out);
  return dir;
}

function sh(shell: string, dir: string, body: string): string[] {
  return execFileSync(shell, ["-c", body], { cwd: dir, encoding: "utf8" }).split("\n").filter(
    Boolean,
  );
}

for (const shell of ["bash", "zsh", "fish"]) {
  if (!has(shell)) console.log(`SKIP ${shell} completion tests: ${shell} is not installed`);
}

Deno.test({
  name: "bash completion: commands, subcommands, options, path values",
  ignore: !has("bash"),
  fn: async () => {
    const dir = await script("bash");
    try {
      const complete = (...words: string[]) =>
        sh(
          "bash",
          dir,
          `source ./script; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${
            words.length - 1
          }; _toolhost; printf '%s\\n' "\${COMPREPLY[@]}"`,
        );
      assert.deepEqual(complete("toolhost", "to"), ["tools"]);
      assert.deepEqual(complete("toolhost", "tools", "c"), ["check", "call"]);
      assert.deepEqual(complete("toolhost", "tools", "check", "--e"), ["--eval", "--execute"]);
      assert.deepEqual(complete("toolhost", "--repo", "x", "tools", "list", "--j"), ["--json"]);
      assert.deepEqual(complete("toolhost", "completions", "--h"), ["--help"]);
      assert.deepEqual(complete("toolhost", "tools", "call", "--eval", ""), []);
      assert.deepEqual(complete("toolhost", "serve", "--repo", "scri"), ["script"]);
      assert.ok(complete("toolhost", "").includes("--version"));
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "zsh completion: the script parses and offers the right candidates",
  ignore: !has("zsh"),
  fn: async () => {
    const dir = await script("zsh");
    try {
      execFileSync("zsh", ["-n", "script"], { cwd: dir });
      const complete = (...words: string[]) =>
        sh(
          "zsh",
          dir,
          "compdef() { :; }; _describe() { local arr=${@[-1]}; print -l -- ${(P)arr}; };" +
            ` _files() { print FILES; }; source ./script; words=(${
              words.map((w) => `'${w}'`).join(" ")
            }); CURRENT=${words.length}; _toolhost`,
        );
      assert.deepEqual(complete("toolhost", "tools", "").map((l) => l.split(":")[0]), [
        "check",
        "list",
        "call",
      ]);
      assert.ok(
        complete("toolhost", "artifact", "validate", "--").includes(
          "--root:an artifact root (repeatable)",
        ),
      );
      assert.deepEqual(complete("toolhost", "artifact", "validate", "--root", ""), ["FILES"]);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "fish completion: complete -C over the generated script",
  ignore: !has("fish"),
  fn: async () => {
    const dir = await script("fish");
    try {
      const complete = (line: string) =>
        sh("fish", dir, `source ./script; complete -C'${line}'`).map((l) => l.split("\t")[0]);
      assert.deepEqual(complete("toolhost tools "), ["call", "check", "list"]);
      assert.ok(complete("toolhost tools check --").includes("--execute"));
      assert.ok(!complete("toolhost tools check --").includes("--http"));
      assert.ok(complete("toolhost ").includes("completions"));
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test("completions: an unknown shell is an invalid invocation (exit 2)", async () => {
  const r = await runCapture(["completions", "tcsh"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /choose one of bash, zsh, fish/);
});

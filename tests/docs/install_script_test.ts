/**
 * scripts/install.ts's pieces that the end-to-end README test does not reach: argument
 * parsing, the PATH hint's test, and an uninstall that never removes what a symlink at
 * the command's place points to.
 *
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import {
  commandPath,
  defaultPrefix,
  onPath,
  prefixArg,
  uninstall,
  usageError,
} from "../../scripts/install.ts";

Deno.test("install: --prefix DIR and --prefix=DIR; default ~/.local; PATH entries compared resolved", () => {
  assert.equal(prefixArg(["--prefix", "/opt/x"]), "/opt/x");
  assert.equal(prefixArg(["--prefix=/opt/y"]), "/opt/y");
  assert.equal(prefixArg([]), undefined);
  assert.throws(() => prefixArg(["--prefix"]), /needs a folder/);
  assert.equal(defaultPrefix(), join(homedir(), ".local"));
  assert.equal(commandPath("/opt/x"), "/opt/x/bin/toolhost");
  assert.equal(onPath("/opt/x/bin", "/usr/bin:/opt/x/bin/"), true);
  assert.equal(onPath("/opt/x/bin", "/usr/bin::/opt/x"), false);
});

Deno.test("install: a mistyped argument is named in the usage error", () => {
  assert.equal(usageError(["--prefix", "/opt/x", "--uninstall"]), undefined);
  assert.equal(usageError(["--prefix=/opt/x"]), undefined);
  assert.equal(
    usageError(["--prefx", "/opt/x"]),
    "unknown arguments `--prefx`, `/opt/x`; usage: deno task install [--prefix DIR] | " +
      "deno task uninstall [--prefix DIR]",
  );
});

Deno.test("uninstall: removes the file, reports absence, refuses a symlink", () => {
  const prefix = mkdtempSync(join(tmpdir(), "toolhost-install-"));
  try {
    mkdirSync(join(prefix, "bin"));
    const cmd = commandPath(prefix);
    writeFileSync(cmd, "#!/bin/sh\n");
    assert.equal(uninstall({ prefix }), true);
    assert.equal(existsSync(cmd), false);
    assert.equal(uninstall({ prefix }), false);
    const victim = join(prefix, "victim");
    writeFileSync(victim, "keep me");
    symlinkSync(victim, cmd);
    assert.throws(() => uninstall({ prefix }), /not a regular file/);
    assert.equal(existsSync(victim), true);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
});

Deno.test('install: an empty --prefix (an unset "$PREFIX") is a usage error, exit 2, nothing built', async () => {
  assert.throws(() => prefixArg(["--prefix", ""]), /needs a folder/);
  assert.throws(() => prefixArg(["--prefix="]), /needs a folder/);
  const script = new URL("../../scripts/install.ts", import.meta.url).pathname;
  const cwd = mkdtempSync(join(tmpdir(), "toolhost-install-cwd-"));
  try {
    for (const args of [["--prefix", ""], ["--prefix="], ["--prefix"]]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", script, ...args],
        cwd,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 2, JSON.stringify(args));
      assert.match(new TextDecoder().decode(out.stderr), /^install: --prefix needs a folder/);
      assert.equal(existsSync(join(cwd, "bin")), false);
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

import assert from "node:assert/strict";
import { pluginsOf } from "../../lib/workspace/parse_plugins.ts";
import { BASE_FILES, BASE_TOML, expectLoads, expectProblem } from "../helpers/workspace.ts";

Deno.test("[plugins] enable: known names in order; unknown, duplicate and typo'd names are errors", async () => {
  const ws = await expectLoads(`${BASE_TOML}\n[plugins]\nenable = ["policy", "audit-log"]\n`);
  assert.deepEqual(pluginsOf(ws).enable, ["policy", "audit-log"]);
  await expectProblem(`${BASE_TOML}\n[plugins]\nenable = ["audit-logs"]\n`, BASE_FILES, {
    keyPath: "plugins.enable[0]",
    message: /names no plugin \(did you mean `audit-log`\?\)/,
  });
  await expectProblem(`${BASE_TOML}\n[plugins]\nenable = ["policy", "policy"]\n`, BASE_FILES, {
    keyPath: "plugins.enable[1]",
    message: /twice/,
  });
  await expectProblem(`${BASE_TOML}\n[plugins]\nenabled = ["policy"]\n`, BASE_FILES, {
    keyPath: "plugins.enabled",
    message: /did you mean `enable`/,
  });
  await expectProblem(`plugins = 3\n${BASE_TOML}`, BASE_FILES, {
    keyPath: "plugins",
    message: /must be a table/,
  });
});

Deno.test("plugin tables: configuring a plugin that is not enabled, or one without options, is an error", async () => {
  await expectProblem(`${BASE_TOML}\n[plugins.policy]\ndefault = "deny"\n`, BASE_FILES, {
    keyPath: "plugins.policy",
    message: /not enabled; add it to plugins.enable/,
  });
  await expectProblem(
    `${BASE_TOML}\n[plugins]\nenable = ["audit-log"]\n[plugins.audit-log]\nfile = "../x"\n`,
    BASE_FILES,
    {
      keyPath: "plugins.audit-log.file",
      message: /plain file name/,
    },
  );
  await expectProblem(
    `${BASE_TOML}\n[plugins]\nenable = ["audit-log"]\n[plugins.audit-log]\nfiel = "a.log"\n`,
    BASE_FILES,
    {
      keyPath: "plugins.audit-log.fiel",
      message: /unknown key/,
    },
  );
});

Deno.test("policy configuration: every mistake names its key", async () => {
  const base = `${BASE_TOML}\n[plugins]\nenable = ["policy"]\n[plugins.policy]\n`;
  const rule = (body: string) => `${base}[[plugins.policy.rules]]\n${body}\n`;
  await expectProblem(`${base}default = "maybe"\n`, BASE_FILES, {
    keyPath: "plugins.policy.default",
  });
  await expectProblem(rule(`effect = "block"`), BASE_FILES, {
    keyPath: "plugins.policy.rules[0].effect",
  });
  await expectProblem(rule(`effect = "deny"\ntools = ["Shell*"]`), BASE_FILES, {
    keyPath: "plugins.policy.rules[0].tools",
  });
  await expectProblem(
    rule(`effect = "deny"\nmatch = [{ pointer = "command", pattern = "x" }]`),
    BASE_FILES,
    {
      keyPath: "plugins.policy.rules[0].match[0].pointer",
    },
  );
  await expectProblem(
    rule(`effect = "deny"\nmatch = [{ pointer = "/c", pattern = "(?=x)" }]`),
    BASE_FILES,
    {
      keyPath: "plugins.policy.rules[0].match[0].pattern",
      message: /not a valid RE2 pattern/,
    },
  );
  await expectProblem(rule(`effect = "deny"\nwhen = []`), BASE_FILES, {
    keyPath: "plugins.policy.rules[0].when",
    message: /unknown key/,
  });
  await expectLoads(
    rule(
      `effect = "deny"\ntools = ["shell_exec_*"]\nmatch = [{ pointer = "/command", pattern = "rm\\\\s+-rf" }]\nreason = "no"`,
    ),
  );
});

Deno.test("protected-values configuration: provider, env map and a file outside the workspace", async () => {
  const base =
    `${BASE_TOML}\n[plugins]\nenable = ["protected-values"]\n[plugins.protected-values]\n`;
  await expectProblem(base, BASE_FILES, { keyPath: "plugins.protected-values.provider" });
  await expectProblem(`${base}provider = "env"\n`, BASE_FILES, {
    keyPath: "plugins.protected-values.env",
  });
  await expectProblem(`${base}provider = "env"\nenv = { tok = "1BAD" }\n`, BASE_FILES, {
    keyPath: "plugins.protected-values.env.tok",
  });
  await expectProblem(`${base}provider = "file"\nfile = "secrets.json"\n`, BASE_FILES, {
    keyPath: "plugins.protected-values.file",
    message: /absolute/,
  });
  await expectLoads(`${base}provider = "file"\nfile = "/etc/toolhost-protected.json"\n`);
});

Deno.test("[[hooks.*]]: entries are checked field by field", async () => {
  const hook = (body: string, event = "before_call") =>
    `${BASE_TOML}\n[[hooks.${event}]]\n${body}\n`;
  const ws = await expectLoads(
    hook(`command = "hooks/x.sh"\nargs = ["a"]\ntools = ["files_*"]\ntimeout_ms = 2000`) +
      `\n[[hooks.after_call]]\ncommand = "jq"\n`,
  );
  assert.deepEqual(pluginsOf(ws).hooks.map((h) => [h.event, h.command, h.timeoutMs, h.keyPath]), [
    ["before_call", "hooks/x.sh", 2000, "hooks.before_call[0]"],
    ["after_call", "jq", 10000, "hooks.after_call[0]"],
  ]);
  await expectProblem(hook(`command = "/bin/x"`), BASE_FILES, {
    keyPath: "hooks.before_call[0].command",
  });
  await expectProblem(hook(`command = "../x.sh"`), BASE_FILES, {
    keyPath: "hooks.before_call[0].command",
    message: /outside the workspace/,
  });
  await expectProblem(hook(`command = "x"\ntimeout_ms = 0`), BASE_FILES, {
    keyPath: "hooks.before_call[0].timeout_ms",
  });
  await expectLoads(hook(`command = "x"\ntimeout_ms = 1`));
  await expectLoads(hook(`command = "x"\ntimeout_ms = 2147483647`));
  await expectProblem(hook(`command = "x"\ntimeout_ms = 2147483648`), BASE_FILES, {
    keyPath: "hooks.before_call[0].timeout_ms",
  });
  await expectProblem(hook(`command = "x"\ntools = ["a b"]`), BASE_FILES, {
    keyPath: "hooks.before_call[0].tools[0]",
  });
  await expectProblem(hook(`command = "x"\ntools = []`), BASE_FILES, {
    keyPath: "hooks.before_call[0].tools",
  });
  await expectProblem(hook(`command = "x"\nmatcher = "y"`), BASE_FILES, {
    keyPath: "hooks.before_call[0].matcher",
  });
  await expectProblem(hook(`command = "x"`, "pre_tool_use"), BASE_FILES, {
    keyPath: "hooks.pre_tool_use",
  });
});

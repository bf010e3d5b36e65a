import assert from "node:assert/strict";
import { renderEnvelope } from "../../lib/odek/render.ts";
import { Redactor } from "../../lib/plugins/redact.ts";
import { BASE, ENV, open } from "./_helpers.ts";

const PEM = "-----BEGIN KEY-----\nMIIBVwIBADANBgkqhkiG9w0\r\n-----END KEY-----\n";

Deno.test("a multi-line value is redacted in the odek render's one-line form", () => {
  const r = new Redactor();
  r.add(PEM);
  for (const printed of [PEM, PEM.trimEnd()]) {
    const rendered = renderEnvelope({
      schema: "odek.tool-result/v1",
      text: `key: ${printed}`,
      artifacts: [],
    });
    assert.equal(r.text(rendered), "key: [protected]", rendered);
  }
  assert.equal(r.text(`raw ${PEM}`), "raw [protected]");
});

Deno.test("a JSON number whose decimal form is a protected value is redacted", () => {
  const r = new Redactor();
  r.add("84736251904");
  const out = r.result({
    content: [{ type: "json", data: { pin: 84736251904, n: 8473 } }],
    isError: false,
  });
  assert.deepEqual(out.content[0], { type: "json", data: { pin: "[protected]", n: 8473 } });
});

Deno.test("a numeric protected value printed as a JSON number never reaches the model", async () => {
  const toml = `${BASE}
[artifacts.app.views.agent_tools.num]
description = "Prints TOKEN as a number."
protocol = "json"
command = "sh"
args = ["-c", "cat >/dev/null; printf '{\\"content\\":[{\\"type\\":\\"json\\",\\"data\\":{\\"pin\\":%s}}]}' \\"$TOKEN\\""]
input_schema = { type = "object", properties = { protectedBindings = { type = "object", additionalProperties = { type = "string" } } }, additionalProperties = false }

[plugins]
enable = ["protected-values"]

[plugins.protected-values]
provider = "env"
env = { pin = "PIN" }
`;
  const w = await open(toml, { env: { ...ENV, PIN: "84736251904" } });
  try {
    const r = await w.reg.call("num_app", { protectedBindings: { TOKEN: "protected://pin" } });
    assert.equal(JSON.stringify(r).includes("84736251904"), false, JSON.stringify(r));
  } finally {
    await w.cleanup();
  }
});

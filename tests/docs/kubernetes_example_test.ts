/**
 * `docs/kubernetes/toolhost.yaml` is valid against the Kubernetes schemas (the
 * `kubernetes-models` package validates each object with its JSON schema), and its probes
 * and arguments match what `serve --http` offers.
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Service } from "kubernetes-models/v1/Service";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";

const PATH = new URL("../../docs/kubernetes/toolhost.yaml", import.meta.url);

Deno.test("docs/kubernetes/toolhost.yaml validates against the Kubernetes schemas", () => {
  const docs = parseAllDocuments(Deno.readTextFileSync(PATH)).map((d) => d.toJS());
  const kinds = docs.map((d) => d.kind);
  assert.deepEqual(kinds, ["Deployment", "Service", "Ingress"]);
  const deployment = new Deployment(docs[0]);
  deployment.validate();
  new Service(docs[1]).validate();
  new Ingress(docs[2]).validate();

  const c = deployment.spec!.template.spec!.containers[0];
  assert.equal(c.readinessProbe?.httpGet?.path, "/readyz");
  assert.equal(c.livenessProbe?.httpGet?.path, "/healthz");
  assert.ok(c.args?.includes("--drain-timeout"));
  assert.equal(docs[2].metadata.annotations["nginx.ingress.kubernetes.io/affinity"], "cookie");
  // A broken manifest is refused (the check can fail).
  const broken = structuredClone(docs[0]);
  broken.spec.replicas = "three";
  assert.throws(() => new Deployment(broken).validate());
});

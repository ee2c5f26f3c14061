// Validates Kubernetes manifests offline against the published API schemas,
// through the npm package kubernetes-models (each object's class validates
// it; unknown kinds are an error). Used by scripts/test-fleet.sh:
//   NODE_PATH=DIR/node_modules node scripts/k8s-validate.cjs FILE.yaml...
// Prints "ok FILE KIND/NAME" or "FAIL FILE KIND/NAME: why" per object;
// exits 1 when any object fails.
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");
let failed = 0;
for (const file of process.argv.slice(2)) {
  let docs;
  try {
    docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter((d) => d != null);
  } catch (e) {
    console.log(`FAIL ${file}: not YAML: ${e.message}`);
    failed++;
    continue;
  }
  if (docs.length === 0) {
    console.log(`FAIL ${file}: no object`);
    failed++;
  }
  for (const obj of docs) {
    const what = `${obj.kind}/${obj.metadata && obj.metadata.name}`;
    const group = String(obj.apiVersion || ""); // "v1" (core) or "GROUP/VERSION", as the package lays them out
    let Cls;
    try {
      Cls = require(`kubernetes-models/${group}/${obj.kind}`)[obj.kind];
    } catch (e) {
      console.log(`FAIL ${file} ${what}: no schema for apiVersion ${obj.apiVersion} kind ${obj.kind}`);
      failed++;
      continue;
    }
    try {
      new Cls(obj).validate();
      console.log(`ok ${file} ${what}`);
    } catch (e) {
      console.log(`FAIL ${file} ${what}: ${e.message.split("\n").slice(0, 6).join(" | ")}`);
      failed++;
    }
  }
}
process.exit(failed ? 1 : 0);

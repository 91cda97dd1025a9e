// validate.js -- schema check of Kubernetes manifests, offline.
//
// Usage: node validate.js FILE.yaml...
//
// Two checks per object, both from the Kubernetes 1.27 API as packaged by
// kubernetes-models:
//   1. JSON schema (types, required fields, formats, enums) with the
//      package's ajv validators: what `kubeconform` checks by default.
//   2. Unknown fields: every object is written as a TypeScript literal typed
//      with the package's interface for its kind, and the TypeScript compiler
//      reports any property the interface does not have, at any depth (what
//      `kubeconform -strict` adds; the API's OpenAPI schemas do not forbid
//      extra properties, so step 1 alone lets a misspelt field through).
// A Kustomization (not an API object) is checked for its own few fields and
// for the files it names.  Prints one line per object; exit 1 on any error.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const YAML = require("yaml");
const ts = require("typescript");

// apiVersion -> the package's module path.
// Core objects ("v1") live in kubernetes-models/v1, the others under their
// group: kubernetes-models/apps/v1, kubernetes-models/rbac.authorization.k8s.io/v1.
function modulePath(apiVersion) {
  return `kubernetes-models/${apiVersion}`;
}

function checkKustomization(file, doc, errors) {
  const known = new Set(["apiVersion", "kind", "resources", "images", "namespace",
                         "commonLabels", "labels", "patches", "configMapGenerator",
                         "secretGenerator", "generatorOptions"]);
  for (const k of Object.keys(doc))
    if (!known.has(k)) errors.push(`${file}: Kustomization: unknown field ${k}`);
  for (const r of doc.resources || []) {
    if (!fs.existsSync(path.join(path.dirname(file), r)))
      errors.push(`${file}: Kustomization names ${r}, which does not exist`);
  }
}

function main(files) {
  const errors = [];
  const typed = [];   // { label, iface, module, json }
  let objects = 0;
  for (const file of files) {
    let docs;
    try {
      docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));
    } catch (e) {
      errors.push(`${file}: ${e.message}`);
      continue;
    }
    docs.forEach((d, i) => {
      if (d.errors.length) {
        errors.push(`${file}[${i}]: YAML: ${d.errors.map((e) => e.message).join("; ")}`);
        return;
      }
      const obj = d.toJS();
      if (obj === null || obj === undefined) return;
      const label = `${path.basename(file)}[${i}] ${obj.kind}/${(obj.metadata || {}).name || ""}`;
      if (!obj.apiVersion || !obj.kind) {
        errors.push(`${label}: no apiVersion or kind`);
        return;
      }
      objects++;
      if (obj.kind === "Kustomization") {
        checkKustomization(file, obj, errors);
        console.log(`ok - ${label} (kustomize fields and files)`);
        return;
      }
      let Model;
      try {
        Model = require(modulePath(obj.apiVersion))[obj.kind];
      } catch (e) {
        Model = undefined;
      }
      if (!Model) {
        errors.push(`${label}: no schema for ${obj.apiVersion} ${obj.kind}`);
        return;
      }
      try {
        new Model(obj).validate();
      } catch (e) {
        errors.push(`${label}: schema: ${e.message}`);
        return;
      }
      typed.push({ label, iface: `I${obj.kind}`, module: `${modulePath(obj.apiVersion)}/${obj.kind}`, json: obj });
      console.log(`ok - ${label} (schema ${obj.apiVersion})`);
    });
  }
  if (typed.length) strictCheck(typed, errors);
  for (const e of errors) console.log(`not ok - ${e}`);
  console.log(`${objects} objects, ${errors.length} errors`);
  return errors.length ? 1 : 0;
}

// Unknown fields through TypeScript's excess-property check.
function strictCheck(typed, errors) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pna-k8s-"));
  const src = path.join(dir, "manifests.ts");
  const lines = [];
  typed.forEach((t, i) => lines.push(`import type { ${t.iface} as T${i} } from "${t.module}";`));
  typed.forEach((t, i) => lines.push(`export const m${i}: T${i} = ${JSON.stringify(t.json, null, 1)};`));
  fs.writeFileSync(src, lines.join("\n") + "\n");
  const program = ts.createProgram([src], {
    strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    baseUrl: __dirname, typeRoots: [], types: [],
    paths: { "*": [path.join(__dirname, "node_modules", "*")] },
  });
  const diags = ts.getPreEmitDiagnostics(program);
  for (const d of diags) {
    const msg = ts.flattenDiagnosticMessageText(d.messageText, " ");
    let where = "manifests";
    if (d.file && d.start !== undefined) {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      // Which object: the last "export const mN" line at or before this one.
      let k = 0;
      d.file.text.split("\n").slice(0, line + 1).forEach((l) => {
        const m = /^export const m(\d+):/.exec(l);
        if (m) k = Number(m[1]);
      });
      const prop = d.file.text.slice(d.start, d.start + 60).split(/[:\n]/)[0];
      where = `${typed[k].label} near ${prop}`;
    }
    errors.push(`${where}: ${msg}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  if (!diags.length) console.log(`ok - no unknown fields in ${typed.length} objects (TypeScript excess-property check)`);
}

process.exit(main(process.argv.slice(2)));

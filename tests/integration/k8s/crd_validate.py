#!/usr/bin/env python3
"""crd_validate.py -- custom resources against their CustomResourceDefinitions.

Usage: crd_validate.py CRD_DIR FILE.yaml...

Every object in FILE... whose apiVersion and kind one of the CRDs in CRD_DIR
defines is validated against that version's openAPIV3Schema with
python3-jsonschema, as the API server validates it, plus what
`kubectl apply --validate=strict` adds: a field the schema does not name is
an error at any depth (the server would prune it silently otherwise), where
the schema neither allows additional properties nor preserves unknown
fields.  Objects of other kinds are left to the Kubernetes schema check.
Prints one line per object checked; exits 1 on any error, 2 on bad usage.
"""
import copy
import glob
import os
import sys

import jsonschema
import yaml


def strict(schema):
    """The schema with additionalProperties false wherever properties are
    listed and the schema says nothing else about unknown fields."""
    s = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if ("properties" in node and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(s)
    return s


def load_crds(crd_dir):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(crd_dir, "*.yaml"))):
        with open(path) as fh:
            for crd in yaml.safe_load_all(fh):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                spec = crd["spec"]
                for v in spec["versions"]:
                    key = ("%s/%s" % (spec["group"], v["name"]), spec["names"]["kind"])
                    schemas[key] = (strict(v["schema"]["openAPIV3Schema"]),
                                    os.path.basename(path))
    return schemas


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    schemas = load_crds(argv[1])
    if not schemas:
        print("no CustomResourceDefinition in %s" % argv[1], file=sys.stderr)
        return 2
    errors = checked = 0
    for path in argv[2:]:
        with open(path) as fh:
            docs = [d for d in yaml.safe_load_all(fh) if d]
        for doc in docs:
            key = (doc.get("apiVersion"), doc.get("kind"))
            if key not in schemas:
                continue
            checked += 1
            schema, crd = schemas[key]
            name = "%s %s/%s" % (doc["kind"], doc.get("metadata", {}).get("namespace", ""),
                                 doc.get("metadata", {}).get("name", ""))
            found = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc),
                           key=lambda e: list(e.absolute_path))
            for e in found:
                where = ".".join(str(p) for p in e.absolute_path) or "(object)"
                print("%s: %s: %s: %s" % (path, name, where, e.message))
            if not doc.get("metadata", {}).get("name"):
                print("%s: %s: metadata.name missing" % (path, name))
                found.append(None)
            if found:
                errors += 1
            else:
                print("ok %s (%s) against %s" % (name, os.path.basename(path), crd))
    if checked == 0:
        print("no object of a kind the CRDs define in: %s" % " ".join(argv[2:]), file=sys.stderr)
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

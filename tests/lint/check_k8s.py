#!/usr/bin/env python3
"""The Kubernetes manifests' hardening (docs/reliability.md, deployment):
every pod runs as non-root with the runtime's seccomp profile, and every
container has allowPrivilegeEscalation false, a read-only root file system,
all capabilities dropped, not privileged, and CPU and memory requests and
limits.

Usage: check_k8s.py FILE.yaml...   exit 1 naming each missing field
       check_k8s.py --selftest FILE.yaml...   each required field removed in
       turn from the shipped manifests must be caught (exit 0 when all are)
Exit 77 (ctest: skipped) when PyYAML is missing."""
import copy
import sys

try:
    import yaml
except ImportError:
    print("check_k8s: PyYAML (python3-yaml) is missing", file=sys.stderr)
    sys.exit(77)

WORKLOADS = {"Pod", "Job", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"}


def pod_spec(doc):
    kind = doc.get("kind")
    if kind == "Pod":
        return doc.get("spec") or {}
    if kind == "CronJob":
        return (((doc.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}).get("template", {}).get("spec") or {}
    return ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}


def problems(doc):
    out = []
    ps = pod_spec(doc)
    sc = ps.get("securityContext") or {}
    if sc.get("runAsNonRoot") is not True:
        out.append("pod securityContext.runAsNonRoot is not true")
    if sc.get("runAsUser") == 0:
        out.append("pod securityContext.runAsUser is 0 (root)")
    if (sc.get("seccompProfile") or {}).get("type") not in ("RuntimeDefault", "Localhost"):
        out.append("pod securityContext.seccompProfile is not RuntimeDefault")
    if ps.get("hostNetwork") or ps.get("hostPID") or ps.get("hostIPC"):
        out.append("pod shares a host namespace")
    cs = (ps.get("containers") or []) + (ps.get("initContainers") or [])
    if not cs:
        out.append("no containers")
    for c in cs:
        n = "container %s" % c.get("name", "?")
        csc = c.get("securityContext") or {}
        if csc.get("allowPrivilegeEscalation") is not False:
            out.append(n + ": allowPrivilegeEscalation is not false")
        if csc.get("readOnlyRootFilesystem") is not True:
            out.append(n + ": readOnlyRootFilesystem is not true")
        if csc.get("privileged"):
            out.append(n + ": privileged")
        if csc.get("runAsUser") == 0:
            out.append(n + ": runAsUser is 0 (root)")
        if "ALL" not in ((csc.get("capabilities") or {}).get("drop") or []):
            out.append(n + ": capabilities.drop lacks ALL")
        res = c.get("resources") or {}
        for part in ("requests", "limits"):
            for r in ("cpu", "memory"):
                if r not in (res.get(part) or {}):
                    out.append("%s: resources.%s.%s missing" % (n, part, r))
    return out


def check(path, docs):
    bad = 0
    for d in docs:
        if isinstance(d, dict) and d.get("kind") in WORKLOADS:
            for p in problems(d):
                print("%s: %s %s: %s" % (path, d["kind"], (d.get("metadata") or {}).get("name", "?"), p), file=sys.stderr)
                bad += 1
    return bad


def paths_of(node, at=()):
    """Every mapping key's path in node (to remove one at a time)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield at + (k,)
            yield from paths_of(v, at + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths_of(v, at + (i,))


def main(argv):
    selftest = argv[:1] == ["--selftest"]
    files = argv[1:] if selftest else argv
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    total = 0
    for f in files:
        with open(f) as fp:
            docs = list(yaml.safe_load_all(fp))
        if not selftest:
            total += check(f, docs)
            continue
        if check(f, docs):
            return 1
        for i, d in enumerate(docs):
            if not (isinstance(d, dict) and d.get("kind") in WORKLOADS):
                continue
            for p in paths_of(d):
                if p[-1] not in ("securityContext", "runAsNonRoot", "seccompProfile", "allowPrivilegeEscalation",
                                 "readOnlyRootFilesystem", "capabilities", "drop", "resources", "requests",
                                 "limits", "cpu", "memory"):
                    continue
                if "volumes" in p or "env" in p:
                    continue
                broken = copy.deepcopy(d)
                node = broken
                for k in p[:-1]:
                    node = node[k]
                del node[p[-1]]
                if not problems(broken):
                    print("%s: removing %s went unnoticed" % (f, "/".join(map(str, p))), file=sys.stderr)
                    return 1
                total += 1
        print("check_k8s: %s: every required field caught when removed" % f)
    if selftest:
        return 0 if total else 1
    if total == 0:
        print("check_k8s: %s: non-root, no privilege escalation, read-only root, no capabilities, requests and limits"
              % " ".join(files))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

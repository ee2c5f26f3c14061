#!/usr/bin/env python3
"""Runs every SQL query of the store dashboards (deploy/grafana/dashboards/*.json):
each panel's, template variable's and annotation's, its template variables and
Grafana macros replaced by concrete values as Grafana would, on the store psql
(the command line given) reaches. For each: rows of the expected shape, under
1 s (EXPLAIN ANALYZE's planning + execution time, run warm), no sequential scan
of gb_rows, and for a panel or annotation a plan through an index.
Prints PASS/FAIL lines (scripts/test-grafana-store.sh counts them).
Usage: grafana_store_queries.py PSQL ARGS..."""
import csv, glob, io, json, re, subprocess, sys

psql = sys.argv[1:]
FROM, TO = "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"
LIMIT_MS = 1000.0
VERDICTS = {"regression", "failed", "collapsed", "unstable", "missing", "not-comparable", "noise", "insufficient",
            "new", "improvement", "worse-info", "better-info", "not-judged", "unchanged"}
failed = 0


def say(ok, what):
    global failed
    failed += not ok
    print("%s %s" % ("PASS" if ok else "FAIL", what), flush=True)


def run(sql):
    p = subprocess.run(psql + ["--csv", "-c", sql], capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(p.stderr.strip())
    rows = list(csv.reader(io.StringIO(p.stdout)))
    return rows[0] if rows else [], rows[1:]


def quoted(vals):
    return ",".join("'" + v.replace("'", "''") + "'" for v in vals)


def substitute(sql, values, multi):
    sql = re.sub(r"\$__timeFilter\(([^()]*(?:\([^()]*\))?[^()]*)\)", lambda m: "%s BETWEEN '%s' AND '%s'" % (m.group(1), FROM, TO), sql)
    for name in sorted(values, key=len, reverse=True):
        v = quoted(values[name]) if multi[name] else values[name][0]
        sql = sql.replace("${%s}" % name, v).replace("$" + name, v)
    assert "$" not in sql.replace("$$", ""), sql
    return sql


def plan_nodes(node):
    yield node
    for child in node.get("Plans", []):
        yield from plan_nodes(child)


def explain(sql, seqscan=True):
    _, rows = run(("" if seqscan else "SET enable_seqscan = off; ") + "EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
    top = json.loads(rows[0][0])[0]
    nodes = list(plan_nodes(top["Plan"]))
    ms = top["Planning Time"] + top["Execution Time"]
    seq_rows = [n for n in nodes if n["Node Type"] == "Seq Scan" and n.get("Relation Name") == "gb_rows"]
    indexed = [n for n in nodes if "Index" in n["Node Type"]]
    return ms, seq_rows, indexed


def check(dash, kind, name, sql, fmt, values, multi, want_rows=True):
    what = "%s: %s %s" % (dash, kind, name)
    try:
        q = substitute(sql, values, multi)
        head, rows = run(q)  # warm
        ms, seq_rows, indexed = explain(q)
    except Exception as e:  # a query that does not run
        say(False, "%s: %s" % (what, e))
        return [], []
    shape = bool(rows) or not want_rows
    if fmt == "time_series":
        shape = shape and "time" in head and "value" in head and all(
            r[head.index("value")] == "" or re.match(r"^-?[0-9.e+-]+$", r[head.index("value")]) for r in rows)
    elif fmt == "annotation":
        shape = shape and head[:3] == ["time", "text", "tags"] and all(r[0] and r[1] for r in rows)
    elif fmt == "variable":
        shape = shape and len(head) in (1, 2)
    else:
        shape = shape and len(head) >= 2
    say(shape, "%s returns %d row(s) of %s (%s)" % (what, len(rows), fmt, ", ".join(head)))
    say(ms < LIMIT_MS, "%s runs in %.1f ms (< 1 s)" % (what, ms))
    say(not seq_rows, "%s reads gb_rows through an index, never a sequential scan" % what)
    if kind != "variable":
        how = ""
        if not indexed:  # a table small here (gb_changes, a few nights' gb_verdicts): the plan once it is not
            how = " with enable_seqscan off (its tables are small here)"
            indexed = explain(q, seqscan=False)[2]
        say(bool(indexed), "%s: its plan uses an index%s (%s)" % (what, how, ", ".join(sorted(
            {"%s on %s" % (n["Node Type"], n.get("Index Name", n.get("Relation Name", "?"))) for n in indexed})) or "none"))
    return head, rows


for path in sorted(glob.glob("deploy/grafana/dashboards/store-*.json")):
    d = json.load(open(path))
    name = path.rsplit("/", 1)[1]
    values, multi = {}, {}
    for v in d["templating"]["list"]:  # in order: each may use those before it
        multi[v["name"]] = bool(v["multi"])
        head, rows = check(name, "variable", v["name"], v["query"], "variable", values, multi)
        if not rows:
            break
        col = head.index("__value") if "__value" in head else 0
        vals = [r[col] for r in rows]
        if v["name"] == "figure":  # a bf16 GEMM's throughput when there is one: the figure with the injected change
            pick = [r[col] for r in rows if r[col].startswith("gemm|tflops|") and "|bf16|" in r[col]]
            vals = vals if v["multi"] else (pick or vals)[:1]
        elif v["name"] == "node" and not v["multi"]:
            vals = ["node03"] if "node03" in vals else vals[:1]
        values[v["name"]] = vals
    if len(values) < 3:
        say(False, "%s: a template variable selected nothing" % name)
        continue
    for a in d["annotations"]["list"]:
        if not a.get("builtIn"):
            check(name, "annotation", a["name"], a["target"]["rawSql"], "annotation", values, multi)
    for p in d["panels"]:
        for t in p["targets"]:
            head, rows = check(name, "panel", p["title"], t["rawSql"], t["format"], values, multi)
            if "verdict" in head:
                say(all(r[head.index("verdict")] in VERDICTS for r in rows), "%s: %s: every verdict is one" % (name, p["title"]))
            if "mean_change_pct" in head:
                x = [float(r[head.index("mean_change_pct")]) for r in rows]
                say(x == sorted(x), "%s: %s: the slowest node first" % (name, p["title"]))
sys.exit(1 if failed else 0)

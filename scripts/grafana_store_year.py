#!/usr/bin/env python3
"""The SQL that fills a seeded gpubench store (PostgreSQL) with a generated year
(scripts/test-grafana-store.sh): NODES x NIGHTS runs of the seed campaign's rows
x REPS repetitions, generated in the server.
Usage: grafana_store_year.py NODES NIGHTS REPS GPU_SPECS_CSV COLUMNS
COLUMNS: gb_rows' columns but id, comma-separated, as the store has them."""
import csv, sys

nodes, nights, reps = (int(a) for a in sys.argv[1:4])
specs, cols = sys.argv[4], sys.argv[5].split(",")

def q(s):
    return "NULL" if s in (None, "") else "'" + s.replace("'", "''") + "'"

out = ["SET max_parallel_workers_per_gather = 0;", "SELECT setseed(0.42);",
       "CREATE TEMP TABLE spec (gpu_type text PRIMARY KEY, fp64t float8, fp32 float8, tf32 float8, fp16 float8, "
       "bf16 float8, fp8 float8, bw float8);"]
for r in csv.DictReader(open(specs)):
    v = [q(r["gpu_type"])] + [q(r[c]) for c in ("fp64_tensor_tflops", "fp32_tflops", "tf32_tflops", "fp16_tflops",
                                                 "bf16_tflops", "fp8_tflops", "mem_bw_gbps")]
    out.append("INSERT INTO spec VALUES (%s);" % ", ".join(v))
shape = " AND ".join("v.%s IS NOT DISTINCT FROM s.%s" % (c, c) for c in ("gpu_count", "m", "n", "k", "bytes"))
out += [
    # the seed campaign's rows, with the headline mark of compare --record's verdicts and the datasheet peak
    "CREATE TEMP TABLE src AS SELECT r.* FROM gb_rows r JOIN gb_runs u ON u.run_id = r.run_id "
    "WHERE u.campaign = 'seed-1' ORDER BY r.id;",
    "UPDATE src s SET headline = CASE WHEN EXISTS (SELECT 1 FROM gb_verdicts v WHERE v.headline = 1 AND "
    "v.benchmark = s.benchmark AND v.\"case\" = s.\"case\" AND v.dtype = s.dtype AND v.metric = s.metric AND "
    + shape + ") THEN 1 END;",
    "UPDATE src s SET peak = CASE WHEN s.benchmark = 'gemm' AND s.metric = 'tflops' THEN CASE s.dtype "
    "WHEN 'bf16' THEN p.bf16 WHEN 'fp16' THEN p.fp16 WHEN 'fp64' THEN p.fp64t WHEN 'tf32' THEN p.tf32 "
    "WHEN 'fp32' THEN p.fp32 WHEN 'fp8' THEN p.fp8 END WHEN s.benchmark = 'membw' AND s.metric = 'gbps' "
    "THEN p.bw END FROM spec p WHERE p.gpu_type = s.gpu_type AND s.peak IS NULL;",
    "TRUNCATE gb_rows, gb_runs, gb_verdicts, gb_changes;",
    # the runs: every node's driver changes at night 120, node05's GPU at night 300
    "CREATE TEMP TABLE nr AS SELECT night, node, to_char(date '2026-01-01' + night, 'YYYYMMDD') || "
    "'T020000Z-node' || lpad(node::text, 2, '0') AS run_id, 'nightly-' || to_char(date '2026-01-01' + night, "
    "'YYYY-MM-DD') AS campaign, 'node' || lpad(node::text, 2, '0') AS host, timestamp '2026-01-01 02:00:00' + "
    "night * interval '1 day' AS t0, 1 + ((node * 7919) %% 41 - 20) / 1000.0 AS off, CASE WHEN night >= 120 "
    "THEN '580.95.05' END AS driver, 'GPU-' || lpad(to_hex(node), 8, '0') || CASE WHEN node = 5 AND night >= 300 "
    "THEN '-0000-0000-0000-00000000beef' ELSE '-0000-0000-0000-000000000000' END AS uuid "
    "FROM generate_series(0, %d) night, generate_series(0, %d) node;" % (nights - 1, nodes - 1),
    "INSERT INTO gb_runs (run_id, campaign, host, gpu_type, gpu_name, gpu_uuid, driver, cuda, git_sha, profile, "
    "started, complete) SELECT nr.run_id, nr.campaign, nr.host, t.gpu_type, t.gpu_name, nr.uuid, "
    "coalesce(nr.driver, t.driver), t.cuda, t.git_sha, t.profile, to_char(nr.t0, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 1 "
    "FROM nr, (SELECT * FROM src LIMIT 1) t ORDER BY nr.night, nr.node;",
]
expr = {
    "khash": "0", "rkey": "md5(s.rkey || ':' || rp)", "run_id": "nr.run_id", "host": "nr.host",
    "timestamp": "to_char(nr.t0 + rp * interval '10 minutes' + (s.id %% 600) * interval '1 second', "
                 "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
    "gpu_uuid": "nr.uuid", "driver": "coalesce(nr.driver, s.driver)", "campaign": "nr.campaign",
    "rep": "rp", "value": "s.value * g.f", "min": "s.min * g.f", "max": "s.max * g.f", "stddev": "s.stddev * g.f",
}
sel = ", ".join(expr.get(c, "s.\"%s\"" % c) for c in cols)
# a bulk load: gb_rows' secondary indexes dropped, then made again from their own definitions
out += ["CREATE TEMP TABLE idx AS SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
        "AND tablename = 'gb_rows' AND indexname NOT IN (SELECT conname FROM pg_constraint);",
        "DO $$ DECLARE r record; BEGIN FOR r IN SELECT indexname FROM idx LOOP EXECUTE 'DROP INDEX ' || "
        "quote_ident(r.indexname); END LOOP; END $$;"]
out.append(
    "INSERT INTO gb_rows (%s) SELECT %s FROM nr CROSS JOIN generate_series(0, %d) rp CROSS JOIN src s "
    "CROSS JOIN LATERAL (SELECT nr.off * exp(0.01 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())) * "
    "CASE WHEN nr.node = 3 AND nr.night >= 200 AND s.benchmark = 'gemm' AND s.dtype = 'bf16' THEN 0.95 ELSE 1 END "
    "+ 0 * s.id AS f) g ORDER BY nr.night, nr.node, rp, s.id;"
    % (", ".join('"%s"' % c for c in cols), sel.replace("%%", "%"), reps - 1))
out.append("DO $$ DECLARE r record; BEGIN FOR r IN SELECT indexdef FROM idx LOOP EXECUTE r.indexdef; END LOOP; END $$;")
out.append("ANALYZE;")
print("\n".join(out))

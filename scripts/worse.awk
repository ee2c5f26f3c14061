# worse.awk: a results CSV with its headline figures made FACTOR as good
# (times divided, rates multiplied), written to OUT; prints how many distinct
# figures it changed. The headline set of scripts/gate-aa.sh and
# scripts/gate-heldout.sh, as core/gb_desc.c classes them: HBM >= 1 GiB,
# GEMM from m = 4096 (speedups left alone), FMA, pinned and device copies at
# their bandwidth-bound size (>= 64 MiB; d2d not L2-resident), and
# collectives of 2 GPUs or more at >= 64 MiB (out-of-place; on one GPU a
# collective is a local copy: information, not a headline figure).
#   awk -F, -v OFS=, -v f=FACTOR -v out=OUT -f scripts/worse.awk IN
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print > out; next }
{
  if ($0 ~ /"/) gsub(/"[^"]*"/, "")
  b = $col["benchmark"]; c = $col["case"]; m = $col["metric"]; by = $col["bytes"] + 0; mm = $col["m"] + 0
  l2 = ("l2_bytes" in col) ? $col["l2_bytes"] + 0 : 0
  l2res = c == "d2d" && l2 > 0 && 2 * by <= l2
  hit = (b == "membw" && by >= 1073741824) || (b == "gemm" && mm >= 4096 && m != "speedup") || b == "fma" ||
        (b == "copy" && c !~ /pageable/ && by >= 67108864 && !l2res) ||
        (b == "collective" && $col["gpu_count"] + 0 >= 2 && c ~ /outofplace/ && by >= 67108864)
  if (hit && $col["status"] != "error" && $col["value"] != "") {
    g = (m == "time_us" || m ~ /_us$|_ms$|_ns$/) ? 1 / f : f
    $col["value"] *= g
    if ($col["min"] != "") $col["min"] *= g
    if ($col["max"] != "") $col["max"] *= g
    if ($col["stddev"] != "") $col["stddev"] *= g
    key = b "|" c "|" $col["dtype"] "|" $col["m"] "|" $col["n"] "|" $col["k"] "|" $col["bytes"] "|" m
    if (!(key in seen)) { seen[key] = 1; n++ }
  }
  print > out
}
END { print n + 0 }

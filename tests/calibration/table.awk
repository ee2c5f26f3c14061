# Turns check_planner_calibration's output into the Markdown table of docs/planner.md ("Validation"):
#   ./build/tests/check_planner_calibration | awk -f tests/calibration/table.awk
# (-v dir=DIR: the cases' folder, default tests/calibration, read for each case's category and, from
# excluded.tsv's and pending.tsv's "# ID: REASON;" comments, each such case's reason.)
# First each half's median and worst |ln(ratio)| as the check printed them, and the judged cases'
# median and worst by category (the tags of cases.tsv's category column; a gpu_hours case is also a whole run);
# then one row a case
# (ratio = predicted / published; the share of predicted time in each term): the cases the check
# lists under "excluded.tsv:" and "pending.tsv:" say "excluded" or "pending" in the split column and their
# reason in the last; those under "heldout.tsv:" (the sources issue 50 holds out) say "held out", and their
# medians, as the check printed them, follow the category table.
function absln(r) { return r > 0 ? (log(r) < 0 ? -log(r) : log(r)) : 1e9 }
function summary(tag, label,    i, j, k, n, v, t, w, wcase) {
  n = 0; w = -1
  for (i = 1; i <= ncase; i++) {
    if (tag != "" && index("," cat[cid[i]] ",", "," tag ",") == 0) continue
    v[++n] = absln(cratio[i])
    if (v[n] > w) { w = v[n]; wcase = cid[i] }
  }
  if (n == 0) return
  for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j] < v[j - 1]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  k = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  printf "| %s | %d | %.3f (x%.3f) | %.3f (x%.3f) | %s |\n", label, n, k, exp(k), w, exp(w), wcase
}
function read_reason(line,    id, r) {
  if (line !~ /^# [A-Za-z0-9._-]+: /) return
  id = substr(line, 3); id = substr(id, 1, index(id, ":") - 1)
  r = substr(line, length(id) + 5); if (index(r, ";")) r = substr(r, 1, index(r, ";") - 1)
  reason[id] = r
}
BEGIN {
  if (dir == "") dir = "tests/calibration"
  FS = "\t"
  while ((getline line < (dir "/cases.tsv")) > 0) {
    if (line ~ /^#/) continue
    split(line, c, "\t"); cat[c[1]] = c[11] (c[9] == "gpu_hours" ? ",whole-run" : "")
  }
  while ((getline line < (dir "/excluded.tsv")) > 0) read_reason(line)
  while ((getline line < (dir "/pending.tsv")) > 0) read_reason(line)
  FS = " "
  rows = "| case | split | gpu_type | GPUs | predicted | published | ratio | unit | compute | bubble | memory + element-wise | TP/PP/CP | DP | all-to-all | note |"
  rows = rows "\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
}
/^cases\.tsv:/ { excl = 0 }
/^excluded\.tsv:/ { excl = 1; kind = "excluded" }
/^pending\.tsv:/ { excl = 1; kind = "pending" }
/^heldout\.tsv:/ { excl = 1; kind = "held out"; reason_all = "a source issue 50 holds out: never fitted, not judged" }
/\|comp / {
  split($0, part, "|"); split(part[1], f, " "); split(part[2], t, " ")
  split_ = f[2]; note = ""
  if (excl) {
    split_ = kind " (" f[2] ")"
    note = kind ": " (f[1] in reason ? reason[f[1]] : reason_all != "" ? reason_all : "see tests/calibration/" kind ".tsv")
  } else { cid[++ncase] = f[1]; cratio[ncase] = f[7] }
  rows = rows sprintf("\n| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", f[1], split_, f[3], f[4], f[5], f[6], f[7], f[8], t[2], t[4], t[6], t[8], t[10], t[12], note)
}
/ half, / { halves = halves "\n- " $0 }
/^worst case/ { worst = $0 }
/^held-out (sources|subset)/ { held = held "\n- " $0 }
END {
  print "Summary (as printed by the check):" halves; print "- " worst
  print ""; print "By category (the judged cases; a case counts in each of its tags):"; print ""
  print "| subset | cases | median \\|ln(ratio)\\| | worst \\|ln(ratio)\\| | worst case |"
  print "| --- | --- | --- | --- | --- |"
  summary("", "all judged")
  summary("dense-train", "dense training"); summary("moe-train", "MoE training"); summary("fp8", "FP8 / MXFP8")
  summary("blackwell", "Blackwell"); summary("nvfp4", "NVFP4"); summary("long-context", "long context")
  summary("inference", "serving"); summary("whole-run", "whole runs (GPU-hours)")
  summary("moe-fine", "fine-grained MoE training (tag moe-fine)"); summary("moe-serve", "MoE serving")
  summary("small-batch", "small-batch serving (batch 1-4)")
  if (held != "") { print ""; print "Held-out sources (heldout.tsv; reported on their own, never fitted or judged):" held }
  print ""; print rows
}

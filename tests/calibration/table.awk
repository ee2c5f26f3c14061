# Turns check_planner_calibration's output into the Markdown table of docs/planner.md ("Validation"):
#   ./build/tests/check_planner_calibration | awk -f tests/calibration/table.awk
# One row a case (ratio = predicted / published; the share of predicted time in each term), then each
# half's median and worst |ln(ratio)| as the check printed them.
BEGIN { print "| case | split | gpu_type | GPUs | predicted | published | ratio | unit | compute | bubble | memory + element-wise | TP/PP/CP | DP | all-to-all |"
        print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" }
/\|comp / {
  split($0, part, "|"); n = split(part[1], f, " "); m = split(part[2], t, " ")
  printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], t[2], t[4], t[6], t[8], t[10], t[12]
}
/ half, / { halves = halves "\n- " $0 }
/^worst case/ { worst = $0 }
END { print ""; print "Summary (as printed by the check):" halves; print "- " worst }

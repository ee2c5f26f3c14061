# gnuplot script written by gpubench report; re-run with: gnuplot gemm_speedup.gp
# data: gemm_speedup.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1360,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'gemm_speedup.png'
set output gb_png
set title 'Mixed-precision GEMM speedup (largest shape)'
set xlabel 'precision pair (A_vs_B: A''s TFLOP/s over B''s)'
set ylabel 'speedup (x)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 14
set border 3
set tics nomirror
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.760000 absolute
set xrange [-0.6:23.6]
set yrange [0:*]
set offsets 0,0,graph 0.08,0
set grid noxtics ytics
set xtics ('fp64_vs_fp32' 0, 'fp32_vs_fp64' 1, 'tf32_vs_fp32' 2, 'tf32_vs_fp64' 3, 'fp16_vs_fp32' 4, 'fp16_vs_fp64' 5, 'fp16acc16_vs_fp32' 6, 'fp16acc16_vs_fp64' 7, 'bf16_vs_fp32' 8, 'bf16_vs_fp64' 9, 'fp8e4m3_e4m3out_fastacc_vs_fp32' 10, 'fp8e4m3_e4m3out_fastacc_vs_fp64' 11, 'fp8e4m3_e4m3out_slowacc_vs_fp32' 12, 'fp8e4m3_e4m3out_slowacc_vs_fp64' 13, 'fp8e4m3_fastacc_vs_fp32' 14, 'fp8e4m3_fastacc_vs_fp64' 15, 'fp8e4m3_slowacc_vs_fp32' 16, 'fp8e4m3_slowacc_vs_fp64' 17, 'fp8e4m3xe5m2_fastacc_vs_fp32' 18, 'fp8e4m3xe5m2_fastacc_vs_fp64' 19, 'fp8e4m3xe5m2_slowacc_vs_fp32' 20, 'fp8e4m3xe5m2_slowacc_vs_fp64' 21, 'int8_vs_fp32' 22, 'int8_vs_fp64' 23)
set xtics rotate by 30 right
set lmargin 24
set rmargin 3
plot \
  'gemm_speedup.dat' index 0 using 1:2 with boxes lc 2 title 'H200-SXM-141GB (20261203T161927Z-vm-5eac5c)', \
  'gemm_speedup.dat' index 0 using 1:2:5 with labels offset 0,0.6 font ',8' notitle
set terminal svg size 1360,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'gemm_speedup.svg'
set output gb_svg
replot
unset output

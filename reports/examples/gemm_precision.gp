# gnuplot script written by gpubench report; re-run with: gnuplot gemm_precision.gp
# data: gemm_precision.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'gemm_precision.png'
set output gb_png
set title 'GEMM throughput per precision (best shape)'
set xlabel 'precision'
set ylabel 'throughput (TFLOP/s; TOP/s for int8)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 1
set bmargin 14
set border 3
set tics nomirror
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.760000 absolute
set xrange [-0.6:12.6]
set yrange [0:*]
set offsets 0,0,graph 0.08,0
set grid noxtics ytics
set xtics ('fp64' 0, 'fp32' 1, 'tf32' 2, 'fp16' 3, 'fp16acc16' 4, 'bf16' 5, 'fp8e4m3_e4m3out_fastacc' 6, 'fp8e4m3_e4m3out_slowacc' 7, 'fp8e4m3_fastacc' 8, 'fp8e4m3_slowacc' 9, 'fp8e4m3xe5m2_fastacc' 10, 'fp8e4m3xe5m2_slowacc' 11, 'int8' 12)
set xtics rotate by 30 right
set lmargin 18
set rmargin 3
plot \
  'gemm_precision.dat' index 0 using 1:2 with boxes lc 2 title 'H200-SXM-141GB (20261203T161927Z-vm-5eac5c)', \
  'gemm_precision.dat' index 0 using 1:2:5 with labels offset 0,0.6 font ',8' notitle, \
  'gemm_precision.dat' index 0 using 1:3:(0.400000) with xerrorbars pt 0 ps 0 lw 2.5 lc rgb 'black' title 'datasheet peak (dense)'
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'gemm_precision.svg'
set output gb_svg
replot
unset output

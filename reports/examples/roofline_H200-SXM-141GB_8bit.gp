# gnuplot script written by gpubench report; re-run with: gnuplot roofline_H200-SXM-141GB_8bit.gp
# data: roofline_H200-SXM-141GB_8bit.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1250,700 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'roofline_H200-SXM-141GB_8bit.png'
set output gb_png
set title 'Measured roofline, H200-SXM-141GB (3 runs combined), 8-bit and below (fp8, int8)'
set xlabel 'arithmetic intensity (FLOP/byte, log scale)'
set ylabel 'throughput (TFLOP/s, log scale)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 8
set border 3
set tics nomirror
set logscale x 10
set logscale y 10
plot \
  'roofline_H200-SXM-141GB_8bit.dat' index 0 using 1:2 with lines lw 3 lc 1 title 'memory (membw): 4697 GB/s', \
  'roofline_H200-SXM-141GB_8bit.dat' index 1 using 1:2 with lines lw 1.5 lc 2 title 'GEMM fp8e4m3xe5m2_fastacc: 1546 TFLOP/s', \
  'roofline_H200-SXM-141GB_8bit.dat' index 2 using 1:2 with lines lw 1.5 lc 3 title 'GEMM int8: 1668 TOP/s', \
  'roofline_H200-SXM-141GB_8bit.dat' index 3 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 7 title 'GEMM (best shape per precision)', \
  'roofline_H200-SXM-141GB_8bit.dat' index 4 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1250,700 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'roofline_H200-SXM-141GB_8bit.svg'
set output gb_svg
replot
unset output

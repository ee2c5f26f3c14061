# gnuplot script written by gpubench report; re-run with: gnuplot roofline_H200-SXM-141GB_wide.gp
# data: roofline_H200-SXM-141GB_wide.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1250,700 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'roofline_H200-SXM-141GB_wide.png'
set output gb_png
set title 'Measured roofline, H200-SXM-141GB (3 runs combined), floating wide (fp64, fp32, tf32)'
set xlabel 'arithmetic intensity (FLOP/byte, log scale)'
set ylabel 'throughput (TFLOP/s, log scale)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 10
set border 3
set tics nomirror
set logscale x 10
set logscale y 10
plot \
  'roofline_H200-SXM-141GB_wide.dat' index 0 using 1:2 with lines lw 3 lc 1 title 'memory (membw): 4697 GB/s', \
  'roofline_H200-SXM-141GB_wide.dat' index 1 using 1:2 with lines lw 1.5 lc 2 title 'CUDA-core fp32: 63.85 TFLOP/s', \
  'roofline_H200-SXM-141GB_wide.dat' index 2 using 1:2 with lines lw 1.5 lc 3 title 'CUDA-core fp64: 33.41 TFLOP/s', \
  'roofline_H200-SXM-141GB_wide.dat' index 3 using 1:2 with lines lw 1.5 lc 4 title 'GEMM fp64: 60.71 TFLOP/s', \
  'roofline_H200-SXM-141GB_wide.dat' index 4 using 1:2 with lines lw 1.5 lc 5 title 'GEMM fp32: 52.25 TFLOP/s', \
  'roofline_H200-SXM-141GB_wide.dat' index 5 using 1:2 with lines lw 1.5 lc 6 title 'GEMM tf32: 416.3 TFLOP/s', \
  'roofline_H200-SXM-141GB_wide.dat' index 6 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 8 title 'STREAM kernels (HBM-bound arrays)', \
  'roofline_H200-SXM-141GB_wide.dat' index 6 using 1:2:3 with labels left offset 0.8,-0.7 font ',9' notitle, \
  'roofline_H200-SXM-141GB_wide.dat' index 7 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 7 title 'GEMM (best shape per precision)', \
  'roofline_H200-SXM-141GB_wide.dat' index 8 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 8 notitle, \
  'roofline_H200-SXM-141GB_wide.dat' index 8 using 1:2:3 with labels right offset -0.8,0.4 font ',9' notitle, \
  'roofline_H200-SXM-141GB_wide.dat' index 9 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1250,700 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'roofline_H200-SXM-141GB_wide.svg'
set output gb_svg
replot
unset output

# gnuplot script written by gpubench report; re-run with: gnuplot gemm_size_H100-SXM-80GB-iters-2000_16bit.gp
# data: gemm_size_H100-SXM-80GB-iters-2000_16bit.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'gemm_size_H100-SXM-80GB-iters-2000_16bit.png'
set output gb_png
set title 'GEMM throughput against size, 16-bit (fp16, bf16), H100-SXM-80GB [iters=2000]'
set xlabel 'matrix size (m*n*k)^(1/3), elements (log scale)'
set ylabel 'throughput (TFLOP/s; TOP/s for int8)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 7
set border 3
set tics nomirror
set logscale x 10
set yrange [0:*]
plot \
  'gemm_size_H100-SXM-80GB-iters-2000_16bit.dat' index 0 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 1 title 'bf16', \
  'gemm_size_H100-SXM-80GB-iters-2000_16bit.dat' index 1 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'gemm_size_H100-SXM-80GB-iters-2000_16bit.svg'
set output gb_svg
replot
unset output

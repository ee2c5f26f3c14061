# gnuplot script written by gpubench report; re-run with: gnuplot gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.gp
# data: gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.png'
set output gb_png
set title 'GEMM throughput against size, 8-bit and below (fp8, int8), H200-SXM-141GB (20261203T161927Z-vm-5eac5c)'
set xlabel 'matrix size (m*n*k)^(1/3), elements (log scale)'
set ylabel 'throughput (TFLOP/s; TOP/s for int8)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 10
set border 3
set tics nomirror
set logscale x 10
set yrange [0:*]
plot \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 0 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 1 title 'fp8e4m3_e4m3out_fastacc', \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 1 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 1 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 1 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 1 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 2 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 2 title 'fp8e4m3_e4m3out_slowacc', \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 3 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 2 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 3 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 2 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 4 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 3 title 'fp8e4m3_fastacc', \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 5 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 3 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 5 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 3 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 6 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 4 title 'fp8e4m3_slowacc', \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 7 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 4 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 7 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 4 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 8 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 5 title 'fp8e4m3xe5m2_fastacc', \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 9 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 5 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 9 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 5 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 10 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 6 title 'fp8e4m3xe5m2_slowacc', \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 11 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 6 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 11 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 6 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 12 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 7 title 'int8', \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 13 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 7 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 13 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 7 notitle, \
  'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.dat' index 14 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'gemm_size_H200-SXM-141GB-20261203T161927Z-vm-5eac5c_8bit.svg'
set output gb_svg
replot
unset output

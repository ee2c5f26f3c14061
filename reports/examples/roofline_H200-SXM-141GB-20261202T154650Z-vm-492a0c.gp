# gnuplot script written by gpubench report; re-run with: gnuplot roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.gp
# data: roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,650 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
set output 'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.png'
set title 'Measured roofline, H200-SXM-141GB (20261202T154650Z-vm-492a0c)'
set xlabel 'arithmetic intensity (FLOP/byte, log scale)'
set ylabel 'throughput (TFLOP/s, log scale)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 9
set border 3
set tics nomirror
set logscale x 10
set logscale y 10
plot \
  'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat' index 0 using 1:2 with lines lw 3 lc 1 title 'memory (membw): 4673 GB/s', \
  'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat' index 1 using 1:2 with lines lw 1.5 lc 2 title 'CUDA-core fp32: 63.87 TFLOP/s', \
  'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat' index 2 using 1:2 with lines lw 1.5 lc 3 title 'CUDA-core fp64: 33.39 TFLOP/s', \
  'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat' index 3 using 1:2 with lines lw 1.5 lc 4 title 'CUDA-core fp16x2 / bf16x2: 127.7 TFLOP/s', \
  'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat' index 4 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 8 title 'STREAM kernels (largest arrays)', \
  'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat' index 4 using 1:2:3 with labels left offset 0.8,0.4 font ',9' notitle, \
  'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.dat' index 5 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,650 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
set output 'roofline_H200-SXM-141GB-20261202T154650Z-vm-492a0c.svg'
replot
unset output

# gnuplot script written by gpubench report; re-run with: gnuplot collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.gp
# data: collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.png'
set output gb_png
set title 'all_reduce algorithm bandwidth against message size, H200-SXM-141GB (20261202T163825Z-vm-a42527)'
set xlabel 'message size (bytes, log scale)'
set ylabel 'algorithm bandwidth (GB/s)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 8
set border 3
set tics nomirror
set logscale x 2
set xtics ('32 B' 32, '1 KiB' 1024, '32 KiB' 32768, '1 MiB' 1048576, '32 MiB' 33554432, '1 GiB' 1073741824)
set xrange [6.964404506368993:1233405466.920316]
set yrange [0:*]
plot \
  'collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat' index 0 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 1 title '1 GPU, out-of-place, fp32', \
  'collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat' index 1 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 2 title '1 GPU, out-of-place, bf16', \
  'collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat' index 2 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 3 title '1 GPU, out-of-place, fp16', \
  'collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat' index 3 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'collective_all-reduce_H200-SXM-141GB-20261202T163825Z-vm-a42527.svg'
set output gb_svg
replot
unset output

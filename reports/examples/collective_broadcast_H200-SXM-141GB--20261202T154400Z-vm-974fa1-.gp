# gnuplot script written by gpubench report; re-run with: gnuplot collective_broadcast_H200-SXM-141GB--20261202T154400Z-vm-974fa1-.gp
# data: collective_broadcast_H200-SXM-141GB--20261202T154400Z-vm-974fa1-.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
set output 'collective_broadcast_H200-SXM-141GB--20261202T154400Z-vm-974fa1-.png'
set title 'broadcast bus bandwidth against message size, H200-SXM-141GB (20261202T154400Z-vm-974fa1)'
set xlabel 'message size (bytes, log scale)'
set ylabel 'bus bandwidth (GB/s)'
set grid back lc rgb '#dddddd'
set key outside right top box opaque Left reverse spacing 1.2
set border 3
set tics nomirror
set logscale x 2
set format x '%.0b %BB'
plot \
  'collective_broadcast_H200-SXM-141GB--20261202T154400Z-vm-974fa1-.dat' index 0 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 1 title '1 GPUs, out-of-place', \
  'collective_broadcast_H200-SXM-141GB--20261202T154400Z-vm-974fa1-.dat' index 1 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
set output 'collective_broadcast_H200-SXM-141GB--20261202T154400Z-vm-974fa1-.svg'
replot
unset output

# gnuplot script written by gpubench report; re-run with: gnuplot membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.gp
# data: membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
set output 'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.png'
set title 'Memory bandwidth against array size, H200-SXM-141GB (20261202T154650Z-vm-492a0c)'
set xlabel 'array size (bytes per array, log scale)'
set ylabel 'bandwidth (GB/s)'
set grid back lc rgb '#dddddd'
set key outside right top box opaque Left reverse spacing 1.2
set border 3
set tics nomirror
set logscale x 2
set format x '%.0b %BB'
set arrow from graph 0, first 4800 to graph 1, first 4800 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set label 'datasheet 4800 GB/s' at graph 0.01, first 4800 left offset 0,0.7 tc rgb '#aa0000' front
plot \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 0 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 1 title 'copy fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 1 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 2 title 'mul fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 2 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 3 title 'add fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 3 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 4 title 'triad fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 4 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 5 title 'dot fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 5 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 6 title 'read fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 6 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 7 title 'write fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 7 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 8 title 'copy fp32', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 8 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 9 title 'mul fp32', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 9 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 10 title 'add fp32', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 10 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 11 title 'triad fp32', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 11 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 12 title 'dot fp32', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 12 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 13 title 'read fp32', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 13 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 14 title 'write fp32', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 14 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 15 title 'copy_cold fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 15 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 16 title 'mul_cold fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 16 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 17 title 'add_cold fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 17 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 18 title 'triad_cold fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 18 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 19 title 'dot_cold fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 19 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 20 title 'read_cold fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 20 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 21 title 'write_cold fp64', \
  'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.dat' index 21 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
set output 'membw_H200-SXM-141GB--20261202T154650Z-vm-492a0c-.svg'
replot
unset output

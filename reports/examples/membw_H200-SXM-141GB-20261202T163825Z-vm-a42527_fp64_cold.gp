# gnuplot script written by gpubench report; re-run with: gnuplot membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.gp
# data: membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.png'
set output gb_png
set title 'Memory bandwidth against array size, cold, fp64, H200-SXM-141GB (20261202T163825Z-vm-a42527)'
set xlabel 'array size (bytes per array, log scale)'
set ylabel 'bandwidth (GB/s)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 10
set border 3
set tics nomirror
set logscale x 2
set xtics ('1 MiB' 1048576, '2 MiB' 2097152, '4 MiB' 4194304, '8 MiB' 8388608, '16 MiB' 16777216, '32 MiB' 33554432, '64 MiB' 67108864, '128 MiB' 134217728, '256 MiB' 268435456)
set xrange [912838.4274587967:308351366.730079]
set arrow from first 6.291456e+07, graph 0 to first 6.291456e+07, graph 1 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set label 'L2 60 MiB' at first 6.291456e+07, graph 0.97 rotate by 90 right offset -1.3,0 tc rgb '#aa0000' front
set arrow from graph 0, first 4800 to graph 1, first 4800 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set label 'datasheet 4800 GB/s' at graph 0.01, first 4800 left offset 0,0.7 tc rgb '#aa0000' front
set yrange [0:*]
plot \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 0 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 1 title 'copy_cold', \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 1 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 2 title 'mul_cold', \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 2 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 3 title 'add_cold', \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 3 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 4 title 'triad_cold', \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 4 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 5 title 'dot_cold', \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 5 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 6 title 'read_cold', \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 6 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 7 title 'write_cold', \
  'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.dat' index 7 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'membw_H200-SXM-141GB-20261202T163825Z-vm-a42527_fp64_cold.svg'
set output gb_svg
replot
unset output

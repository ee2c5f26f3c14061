# gnuplot script written by gpubench report; re-run with: gnuplot copy.gp
# data: copy.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1100,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'copy.png'
set output gb_png
set title 'Copy bandwidth, each copy at the largest size all runs measured'
set xlabel 'copy, transfer size'
set ylabel 'bandwidth (GB/s)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 12
set border 3
set tics nomirror
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.380000 absolute
set xrange [-0.6:5.6]
set yrange [0:*]
set offsets 0,0,graph 0.08,0
set grid noxtics ytics
set xtics ('d2d, 256 MiB' 0, 'h2d_pinned, 256 MiB' 1, 'd2h_pinned, 256 MiB' 2, 'bidir_pinned, 256 MiB' 3, 'h2d_pageable, 256 MiB' 4, 'd2h_pageable, 256 MiB' 5)
set xtics rotate by 30 right
set lmargin 16
set rmargin 3
plot \
  'copy.dat' index 0 using 1:2 with boxes lc 3 title 'H200-SXM-141GB (20261202T154744Z-vm-611c71)', \
  'copy.dat' index 0 using 1:2:5 with labels offset 0,0.6 font ',8' notitle, \
  'copy.dat' index 1 using 1:2 with boxes lc 4 title 'H200-SXM-141GB (20261202T163825Z-vm-a42527)', \
  'copy.dat' index 1 using 1:2:5 with labels offset 0,0.6 font ',8' notitle
set terminal svg size 1100,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'copy.svg'
set output gb_svg
replot
unset output

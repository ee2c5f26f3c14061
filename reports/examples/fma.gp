# gnuplot script written by gpubench report; re-run with: gnuplot fma.gp
# data: fma.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'fma.png'
set output gb_png
set title 'CUDA-core FMA throughput'
set xlabel 'data type'
set ylabel 'throughput (TFLOP/s)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 1
set bmargin 8
set border 3
set tics nomirror
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.760000 absolute
set xrange [-0.6:3.6]
set yrange [0:*]
set offsets 0,0,graph 0.08,0
set grid noxtics ytics
set xtics ('fp64' 0, 'fp32' 1, 'fp16x2' 2, 'bf16x2' 3)
plot \
  'fma.dat' index 0 using 1:2 with boxes lc 4 title 'H200-SXM-141GB (20261202T163825Z-vm-a42527)', \
  'fma.dat' index 0 using 1:2:5 with labels offset 0,0.6 font ',8' notitle, \
  'fma.dat' index 0 using 1:3:(0.400000) with xerrorbars pt 0 ps 0 lw 2.5 lc rgb 'black' title 'datasheet peak'
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'fma.svg'
set output gb_svg
replot
unset output

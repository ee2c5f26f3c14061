# gnuplot script written by gpubench report; re-run with: gnuplot collective_all-gather_H200-SXM-141GB-20261202T163825Z-vm-a42527.gp
# data: collective_all-gather_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'collective_all-gather_H200-SXM-141GB-20261202T163825Z-vm-a42527.png'
set output gb_png
set title 'all_gather algorithm bandwidth against message size, H200-SXM-141GB (20261202T163825Z-vm-a42527)'
set xlabel 'message size (bytes, log scale)'
set ylabel 'algorithm bandwidth (GB/s)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 7
set border 3
set tics nomirror
set logscale x 2
set xtics ('64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304, '16 MiB' 16777216, '64 MiB' 67108864, '256 MiB' 268435456, '1 GiB' 1073741824)
set xrange [57052.40171617479:1233405466.920316]
set yrange [0:*]
plot \
  'collective_all-gather_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat' index 0 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 1 title '1 GPU, out-of-place', \
  'collective_all-gather_H200-SXM-141GB-20261202T163825Z-vm-a42527.dat' index 1 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,600 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'collective_all-gather_H200-SXM-141GB-20261202T163825Z-vm-a42527.svg'
set output gb_svg
replot
unset output

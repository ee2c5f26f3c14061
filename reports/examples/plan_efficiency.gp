# gnuplot script written by gpubench report; re-run with: gnuplot plan_efficiency.gp
# data: plan_efficiency.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1100,650 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'plan_efficiency.png'
set output gb_png
set title 'Cost efficiency, best feasible configuration of each of 5 GPU types'
set xlabel 'configuration (rank, GPUs, type, offer)'
set ylabel 'efficiency (PFLOP/USD)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 16
set border 3
set tics nomirror
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.760000 absolute
set xrange [-0.6:4.6]
set yrange [0:*]
set offsets 0,0,graph 0.08,0
set grid noxtics ytics
set xtics ('#1 72x MI300X TensorWave on-demand' 0, '#68 32x B200 Vast.ai on-demand' 1, '#215 72x MI325X TensorWave on-demand' 2, '#333 64x H100 AWS spot' 3, '#861 48x H200 RunPod on-demand' 4)
set xtics rotate by 30 right
set lmargin 29
set rmargin 3
plot \
  'plan_efficiency.dat' index 0 using 1:2 with boxes lc 1 title 'efficiency (PFLOP/USD)', \
  'plan_efficiency.dat' index 0 using 1:2:5 with labels offset 0,0.6 font ',8' notitle
set terminal svg size 1100,650 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'plan_efficiency.svg'
set output gb_svg
replot
unset output

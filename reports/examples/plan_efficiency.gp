# gnuplot script written by gpubench report; re-run with: gnuplot plan_efficiency.gp
# data: plan_efficiency.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1100,650 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
set output 'plan_efficiency.png'
set title 'Cost efficiency, best feasible configuration of each of 8 GPU types'
set xlabel 'configuration (rank, GPUs, type, offer)'
set ylabel 'efficiency (PFLOP/USD)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 15
set border 3
set tics nomirror
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.760000 absolute
set xrange [-0.6:7.6]
set yrange [0:*]
set offsets 0,0,graph 0.08,0
set grid noxtics ytics
set xtics ('#1 32x MI300X TensorWave on-demand' 0, '#38 104x L40S market purchase' 1, '#42 224x RTX4090 market purchase' 2, '#67 16x B200 RunPod on-demand' 3, '#559 40x H100 Supermicro purchase' 4, '#1798 40x H200 market purchase' 5, '#2171 112x A100 dihuni purchase' 6, '#3913 279x L4 AWS on-demand' 7)
set xtics rotate by 30 right
set lmargin 27
set rmargin 3
plot \
  'plan_efficiency.dat' index 0 using 1:2 with boxes lc 1 title 'efficiency (PFLOP/USD)', \
  'plan_efficiency.dat' index 0 using 1:2:5 with labels offset 0,0.6 font ',8' notitle
set terminal svg size 1100,650 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
set output 'plan_efficiency.svg'
replot
unset output

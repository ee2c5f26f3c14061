# gnuplot script written by gpubench report; re-run with: gnuplot plan_efficiency.gp
# data: plan_efficiency.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1100,650 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
set output 'plan_efficiency.png'
set title 'Cost efficiency, top 15 feasible configurations by rank'
set xlabel 'configuration (rank, GPUs, type, offer)'
set ylabel 'efficiency (PFLOP/USD)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 16
set border 3
set tics nomirror
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.760000 absolute
set xrange [-0.6:14.6]
set yrange [0:*]
set offsets 0,0,graph 0.08,0
set grid noxtics ytics
set xtics ('#1 32x MI300X TensorWave on-demand' 0, '#2 40x MI300X TensorWave on-demand' 1, '#3 48x MI300X TensorWave on-demand' 2, '#4 56x MI300X TensorWave on-demand' 3, '#5 64x MI300X TensorWave on-demand' 4, '#6 72x MI300X TensorWave on-demand' 5, '#7 80x MI300X TensorWave on-demand' 6, '#8 88x MI300X TensorWave on-demand' 7, '#9 96x MI300X TensorWave on-demand' 8, '#10 104x MI300X TensorWave on-demand' 9, '#11 112x MI300X TensorWave on-demand' 10, '#12 120x MI300X TensorWave on-demand' 11, '#13 128x MI300X TensorWave on-demand' 12, '#14 136x MI300X TensorWave on-demand' 13, '#15 144x MI300X TensorWave on-demand' 14)
set xtics rotate by 30 right
set lmargin 29
set rmargin 3
plot \
  'plan_efficiency.dat' index 0 using 1:2 with boxes lc 1 title 'efficiency (PFLOP/USD)', \
  'plan_efficiency.dat' index 0 using 1:2:5 with labels offset 0,0.6 font ',8' notitle
set terminal svg size 1100,650 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
set output 'plan_efficiency.svg'
replot
unset output

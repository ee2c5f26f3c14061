# gnuplot script written by gpubench report; re-run with: gnuplot plan_rent_vs_buy.gp
# data: plan_rent_vs_buy.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,550 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
set output 'plan_rent_vs_buy.png'
set title 'Cumulative cost, best rental and best purchase'
set xlabel 'months'
set ylabel 'cumulative cost (thousand USD)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 1
set bmargin 8
set border 3
set tics nomirror
set arrow from first 32.89183388754491, graph 0 to first 32.89183388754491, graph 1 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set label 'break-even 32.9 months' at first 32.89183388754491, graph 0.97 rotate by 90 right offset -1.3,0 tc rgb '#aa0000' front
plot \
  'plan_rent_vs_buy.dat' index 0 using 1:2 with lines lw 1.5 lc 1 title 'rent: 32x MI300X-OAM-192GB TensorWave on-demand', \
  'plan_rent_vs_buy.dat' index 1 using 1:2 with lines lw 1.5 lc 2 title 'buy: 104x L40S-PCIE-48GB market', \
  'plan_rent_vs_buy.dat' index 2 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,550 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
set output 'plan_rent_vs_buy.svg'
replot
unset output

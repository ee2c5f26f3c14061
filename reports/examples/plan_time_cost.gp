# gnuplot script written by gpubench report; re-run with: gnuplot plan_time_cost.gp
# data: plan_time_cost.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1100,650 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'plan_time_cost.png'
set output gb_png
set title 'Time against cost per configuration'
set xlabel 'time to finish (hours, log scale)'
set ylabel 'cost (USD, log scale)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 9
set border 3
set tics nomirror
set logscale x 10
set logscale y 10
set arrow from first 720, graph 0 to first 720, graph 1 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set label 'deadline 720 h' at first 720, graph 0.97 rotate by 90 right offset -1.3,0 tc rgb '#aa0000' front
set arrow from graph 0, first 250000 to graph 1, first 250000 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set label 'budget 250,000 USD' at graph 0.01, first 250000 left offset 0,0.7 tc rgb '#aa0000' front
plot \
  'plan_time_cost.dat' index 0 using 1:2 with points pt 6 ps 1.2 lw 1.5 lc 1 notitle, \
  'plan_time_cost.dat' index 0 using ($6<$1 || $7>$1 || $4<$2 || $5>$2 ? $1 : NaN):2:6:7:4:5 with xyerrorbars pt 6 ps 1.2 lw 1.5 lc 1 title 'B200-SXM-180GB projected', \
  'plan_time_cost.dat' index 1 using 1:2 with points pt 6 ps 1.2 lw 1.5 lc 2 notitle, \
  'plan_time_cost.dat' index 1 using ($6<$1 || $7>$1 || $4<$2 || $5>$2 ? $1 : NaN):2:6:7:4:5 with xyerrorbars pt 6 ps 1.2 lw 1.5 lc 2 title 'H100-SXM-80GB projected', \
  'plan_time_cost.dat' index 2 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 3 notitle, \
  'plan_time_cost.dat' index 2 using ($6<$1 || $7>$1 || $4<$2 || $5>$2 ? $1 : NaN):2:6:7:4:5 with xyerrorbars pt 7 ps 1.2 lw 1.5 lc 3 title 'H200-SXM-141GB measured', \
  'plan_time_cost.dat' index 3 using 1:2 with points pt 6 ps 1.2 lw 1.5 lc 4 notitle, \
  'plan_time_cost.dat' index 3 using ($6<$1 || $7>$1 || $4<$2 || $5>$2 ? $1 : NaN):2:6:7:4:5 with xyerrorbars pt 6 ps 1.2 lw 1.5 lc 4 title 'MI300X-OAM-192GB projected', \
  'plan_time_cost.dat' index 4 using 1:2 with points pt 6 ps 1.2 lw 1.5 lc 5 notitle, \
  'plan_time_cost.dat' index 4 using ($6<$1 || $7>$1 || $4<$2 || $5>$2 ? $1 : NaN):2:6:7:4:5 with xyerrorbars pt 6 ps 1.2 lw 1.5 lc 5 title 'MI325X-OAM-256GB projected', \
  'plan_time_cost.dat' index 5 using 1:2 with lines lw 3 lc 8 title 'Pareto frontier (all types)', \
  'plan_time_cost.dat' index 5 using 1:2:3 with labels right offset -0.8,-0.7 font ',9' notitle, \
  'plan_time_cost.dat' index 6 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1100,650 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'plan_time_cost.svg'
set output gb_svg
replot
unset output

# gnuplot script written by gpubench report; re-run with: gnuplot plan_tornado.gp
# data: plan_tornado.dat (one block per series, numbers in the C locale)
set terminal pngcairo size 1000,450 font 'Sans,11' noenhanced
set termoption noenhanced
set decimalsign '.'
set encoding utf8
if (!exists('gb_png')) gb_png = 'plan_tornado.png'
set output gb_png
set title 'How the top choice''s cost moves with each factor'
set xlabel 'change in the top choice''s cost (%)'
set ylabel 'factor (widest swing on top)'
set grid back lc rgb '#dddddd'
set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 width 2 maxcols 2
set bmargin 7
set border 3
set tics nomirror
set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lw 1.5 lc rgb '#aa0000' front
set label 'as planned' at first 0, graph 1 left offset 0.6,-1 tc rgb '#aa0000' front
set ytics ('efficiency' 1, 'price' 2)
set offsets graph 0.15, graph 0.15, 0, 0
set yrange [0.4:2.6]
plot \
  'plan_tornado.dat' index 0 using 1:2 with linespoints pt 7 ps 0.8 lw 3 lc 1 title 'efficiency (swing 39.9 points)', \
  'plan_tornado.dat' index 0 using 1:2:3 with labels left offset 0.8,0.4 font ',9' notitle, \
  'plan_tornado.dat' index 1 using 1:2 with linespoints pt 7 ps 0.8 lw 3 lc 2 title 'price (swing 40.0 points)', \
  'plan_tornado.dat' index 1 using 1:2:3 with labels left offset 0.8,0.4 font ',9' notitle, \
  'plan_tornado.dat' index 2 using 1:2 with points ps 0 lc rgb 'white' notitle
set terminal svg size 1000,450 font 'Sans,11' noenhanced background rgb 'white'
set termoption noenhanced
if (!exists('gb_svg')) gb_svg = 'plan_tornado.svg'
set output gb_svg
replot
unset output

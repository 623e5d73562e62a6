# script_lib.sh - shell helpers shared by preload/bench_programs.sh and
# preload/check_no_hang.sh (sourced, not run).
#   now                 wall-clock seconds with ns (date +%s.%N)
#   median              the median of the numbers on stdin, one per line
now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# script_lib.sh - shell helpers shared by preload/bench_programs.sh,
# preload/check_no_hang.sh, preload/bench_sysbench.sh, sim/twin.sh and
# sim/script_args.sh (sourced, not run; POSIX sh).
#   now                 wall-clock seconds with ns (date +%s.%N)
#   median              the median of the numbers on stdin, one per line
#   need_count PROG NAME VALUE
#                       exit 2 naming NAME unless VALUE is an integer >= 1
#   need_kind PROG PVSPIN KIND
#                       exit 2 naming KIND unless PVSPIN knows the lock kind
now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
need_count() {
	case $3 in
	''|*[!0-9]*|0|0*) echo "$1: $2 must be an integer from 1 up, not '$3'" >&2; exit 2 ;;
	esac
}
need_kind() {
	_e=$("$2" run --lock "$3" -- true 2>&1 >/dev/null) ||
		{ echo "$1: ${_e#pvspin run: }" >&2; exit 2; }
}

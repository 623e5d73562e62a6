#!/bin/sh
# cli_report_fifo.sh PVSPIN: a report written to a named pipe reaches the
# pipe's reader.  The check that a report can be written before the run
# used to open the pipe and close it again, which gave the reader its end
# of file; the report then waited for ever for another reader (a new
# user's `mkfifo f; cat f > out & pvspin sim --preset smoke --json f`).
# Prints report-fifo-ok on success.
set -u
pvspin=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/f" || exit 1
for run in "sim --preset smoke --json" \
	   "bench --threads 1 --locks tas --duration-ms 10 --repeat 1 --no-placement --json"; do
	rm -f "$dir/out"
	cat "$dir/f" > "$dir/out" &
	reader=$!
	# shellcheck disable=SC2086 # $run is the command's words
	timeout 60 "$pvspin" $run "$dir/f" > /dev/null 2>&1
	r=$?
	wait "$reader"
	if [ "$r" != 0 ]; then
		echo "pvspin $run FIFO: exit $r (124: hung)"
		exit 1
	fi
	if ! grep -q '"config"' "$dir/out"; then
		echo "pvspin $run FIFO: the reader got no report"
		exit 1
	fi
done
echo report-fifo-ok

#!/bin/sh
# sim_seed_round_trip.sh PVSPIN DIR - the JSON of a run re-runs with the
# same seed (`pvspin sim out.json`) over the whole seed range 0..2^64-1:
# at 0, at INT64_MAX (the largest JSON integer) and above it, where the
# seed is written as a string.  Prints ROUND-TRIP OK on success.
set -e
P=$1
D=$2
for seed in 0 9223372036854775807 9223372036854775808 18446744073709551615; do
	"$P" sim --preset smoke --set seconds=0.0005 --seed "$seed" --json "$D/sim_seed_a.json"
	"$P" sim "$D/sim_seed_a.json" --json "$D/sim_seed_b.json"
	grep -q "\"seed\": \"*$seed\"*," "$D/sim_seed_b.json" || {
		echo "seed $seed not kept:"; grep '"seed"' "$D/sim_seed_a.json" "$D/sim_seed_b.json"
		exit 1
	}
	# the re-run is the same run
	grep -v wall_seconds "$D/sim_seed_a.json" | grep -v events_per_s > "$D/sim_seed_a.txt"
	grep -v wall_seconds "$D/sim_seed_b.json" | grep -v events_per_s > "$D/sim_seed_b.txt"
	cmp "$D/sim_seed_a.txt" "$D/sim_seed_b.txt"
done
rm -f "$D"/sim_seed_a.json "$D"/sim_seed_b.json "$D"/sim_seed_a.txt "$D"/sim_seed_b.txt
echo "ROUND-TRIP OK"

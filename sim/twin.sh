#!/bin/sh
# twin.sh - the machine twin side by side with the machine (sim/README.md,
# "The machine twin"): `pvspin bench` with real threads here, and
# `pvspin sim --preset twin` at the same points, each lock kind's ops/s
# relative to its own 1-thread figure, and the ratio of the two.
#
# usage: sim/twin.sh BUILD_DIR        (e.g. build/release; needs
#                                      BUILD_DIR/tools/pvspin and pvspin-sim)
#   SEEDS=N       simulated seeds 1 .. N (default 5), median [min - max]
#   BENCH_JSON=F  use this `pvspin bench --json` report instead of measuring
#   COSTS=0       do not run BUILD_DIR/sim/twin_costs (the profile's costs,
#                 measured now, printed after the table)
#   KINDS=LIST    the lock kinds (default the four kernel kinds and
#                 spinpark, the default kind: it runs from the same source)
# Prints a Markdown table.  Needs python3.  Run time here: the bench ~25 s
# (5 kinds x 4 thread counts x 3 repeats x 400 ms), the simulator ~2 min of
# both CPUs for 5 seeds (a 2-thread point simulates ~10 M events), the
# costs ~8 s.  Run it on a machine nothing else loads: other work changes
# the measured figures (the FIFO kinds' collapse most of all).
set -e
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
B=$1
for f in "$B/tools/pvspin" "$B/tools/pvspin-sim"; do
  if [ ! -x "$f" ]; then
    echo "$0: $f not found (build the project into $B first)" >&2
    exit 1
  fi
done
SEEDS=${SEEDS:-5}
KINDS=${KINDS:-qspinlock,pvqspinlock,tas,ticket,spinpark}
# the knobs are checked before minutes of measuring, not after
. "$(dirname "$0")/../preload/script_lib.sh"
need_count twin.sh SEEDS "$SEEDS"
for k in $(echo "$KINDS" | tr ',' ' '); do
  need_kind twin.sh "$B/tools/pvspin" "$k"
done
THREADS=1,2,4,8
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$BENCH_JSON" ]; then
  cp "$BENCH_JSON" "$tmp/bench.json"
else
  "$B/tools/pvspin" bench --locks $KINDS --threads $THREADS --repeat 3 \
    --json "$tmp/bench.json" > "$tmp/bench.txt"
fi
costs=
if [ "${COSTS:-1}" != 0 ] && [ -x "$B/sim/twin_costs" ]; then
  costs=$("$B/sim/twin_costs" | tr '\n' ' ')
fi
python3 - "$B/tools/pvspin-sim" "$SEEDS" "$tmp/bench.json" "$KINDS" "$THREADS" "$costs" <<'PY'
import json, statistics, subprocess, sys
sim, seeds, bench_json, kinds, threads, costs = sys.argv[1:7]
kinds, threads = kinds.split(","), [int(t) for t in threads.split(",")]

bench = json.load(open(bench_json))
meas = {(r["lock"], r["threads"]): r["ops_per_s"] for r in bench["results"]}

def sim_runs(kind, t):
    out = subprocess.run([sim, "--preset", "twin", "--set", "lock=" + kind,
                          "--set", "vcpus=%d" % t, "--seeds", seeds, "--json", "-"],
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("pvspin-sim (%s, %d threads) failed:\n%s" % (kind, t, out.stderr))
    return [r["vms"][0]["ops_per_s"] for r in json.loads(out.stdout)["runs"]]

def spread(xs, f):
    return (f + " [" + f + " – " + f + "]") % (statistics.median(xs), min(xs), max(xs))

def ops(x):
    return "%.3gM" % (x / 1e6) if x >= 1e6 else "%.3gk" % (x / 1e3)

m, c = bench.get("machine", {}), bench.get("config", {})
print("Measured: `pvspin bench --locks %s --threads %s --repeat 3` (cs %s ns + %s lines, "
      "ncs %s ns, %s ms cells, the median repeat; %s CPUs, %s, %s)." %
      (",".join(kinds), ",".join(map(str, threads)), c.get("cs_ns"), c.get("cs_lines"),
       c.get("ncs_ns"), c.get("duration_ms"), m.get("ncpus"), m.get("model_name"),
       m.get("kernel")))
print("Simulated: `pvspin sim --preset twin --set lock=K --set vcpus=T`, seeds 1-%s; "
      "relative figures taken seed by seed, median [min – max].\n" % seeds)
print("| lock | threads | measured ops/s | measured / 1 thread | simulated ops/s "
      "| simulated / 1 thread | simulated / measured |")
print("|---|---|---|---|---|---|---|")
held, total = 0, 0
for k in kinds:
    runs = {t: sim_runs(k, t) for t in threads}
    for t in threads:
        mrel = meas[(k, t)] / meas[(k, 1)]
        srel = [runs[t][i] / runs[1][i] for i in range(len(runs[t]))]
        ratio = statistics.median(srel) / mrel
        ok = 0.5 <= ratio <= 2.0
        if t != 1:
            total += 1
            held += ok
        print("| %s | %d | %s | %.4g | %s | %s | %s%s |" %
              (k, t, ops(meas[(k, t)]), mrel, ops(statistics.median(runs[t])),
               spread(srel, "%.4g"), "%.3g" % ratio,
               "" if t == 1 else (" (within 2x)" if ok else " (**not within 2x**)")))
print("\n%d of %d points (threads > 1) within 2x." % (held, total))
if costs:
    print("\nCosts measured now (sim/twin_costs; the profile linux-threads in "
          "sim/sim_profile.c quotes its own runs): " + costs.strip())
PY

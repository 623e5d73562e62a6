#!/bin/sh
# reproduce.sh - run the three seed presets of `pvspin sim` over several
# seeds and print the comparisons of issue 4's "done when" (sim/README.md,
# "Results") as median [min .. max] over the seeds.  A ratio or a gain is
# taken seed by seed (the same seed in both runs), then summarised.
# usage: sim/reproduce.sh [PVSPIN_SIM]   (the pvspin-sim binary, its directory or
#        the build tree; default build/dev/tools/pvspin-sim)
#        SEEDS=N (default 5): seeds 1 .. N, run in parallel (pvspin sim --seeds)
# Needs python3 for reading the JSON.  About 2 minutes of CPU (user + sys)
# for 5 seeds with a Release build, run on up to nproc CPUs at once.
set -e
. "$(dirname "$0")/script_args.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# run NAME ARGS...: the seeds of one configuration into $T/NAME.json
run() { n=$1; shift; "$SIM" "$@" --seeds "$SEEDS" --json "$T/$n.json"; }
# show EXPR-PYTHON: print with helpers over the runs of $T/*.json
show() {
  python3 - "$T" "$1" <<'EOF'
import json, os, statistics, sys
T, expr = sys.argv[1], sys.argv[2]
def runs(name):
    return json.load(open(os.path.join(T, name + ".json")))["runs"]
def comp(r):   # completion: the last VM's, or the run's length if not done
    return max((v["completion_s"] or r["sim_seconds"]) for v in r["vms"])
def tput(r):   # ops/s per VM
    return sum(v["ops_per_s"] for v in r["vms"]) / len(r["vms"])
def per_seed(f, *names):   # f(run of each name) for every seed
    return [f(*rs) for rs in zip(*(runs(n) for n in names))]
def spread(xs, fmt="%.3f"):
    return (fmt + " [" + fmt + " .. " + fmt + "]") % (statistics.median(xs), min(xs), max(xs))
def pct(xs):
    return spread([100 * x for x in xs], "%+.1f") + " %"
print(eval(expr))
EOF
}

echo "== kcbench-no-ple (seed 002: 2 VMs qspinlock 2362 s vs PV 354 s; 1 VM 173 vs 172 s)"
echo "   median [min .. max] over seeds 1-$SEEDS"
for vms in 1 2; do
  for lock in qspinlock pvqspinlock tas; do
    run kc_${vms}_$lock --preset kcbench-no-ple --set vms=$vms --set lock=$lock
  done
  show "'  vms=$vms completion s: qspinlock %s, pvqspinlock %s, tas %s\n    qspinlock/pvq %s x, qspinlock/tas %s x' % (
    spread(per_seed(comp, 'kc_${vms}_qspinlock')), spread(per_seed(comp, 'kc_${vms}_pvqspinlock')),
    spread(per_seed(comp, 'kc_${vms}_tas')),
    spread(per_seed(lambda q, p: comp(q) / comp(p), 'kc_${vms}_qspinlock', 'kc_${vms}_pvqspinlock'), '%.2f'),
    spread(per_seed(lambda q, t: comp(q) / comp(t), 'kc_${vms}_qspinlock', 'kc_${vms}_tas'), '%.2f'))"
done

echo "== ebizzy-boost (seed 001: kick_yield gain +6% / +70% / +74% with 1 / 2 / 3 VMs)"
for vms in 1 2 3; do
  for ky in 0 1 oracle; do
    run eb_${vms}_$ky --preset ebizzy-boost --set vms=$vms --set kick_yield=$ky
  done
  show "'  vms=$vms ops/s per VM: vanilla %s, boost %s\n    gain %s (an instant free boost, kick_yield=oracle: %s)' % (
    spread(per_seed(tput, 'eb_${vms}_0'), '%.0f'), spread(per_seed(tput, 'eb_${vms}_1'), '%.0f'),
    pct(per_seed(lambda a, b: tput(b) / tput(a) - 1, 'eb_${vms}_0', 'eb_${vms}_1')),
    pct(per_seed(lambda a, o: tput(o) / tput(a) - 1, 'eb_${vms}_0', 'eb_${vms}_oracle')))"
done
show "'  vanilla per-VM ops/s over 1 VM (seed 001: 0.34 / 0.13): 2 VMs %s, 3 VMs %s' % (
  spread(per_seed(lambda a, b: tput(b) / tput(a), 'eb_1_0', 'eb_2_0'), '%.2f'),
  spread(per_seed(lambda a, b: tput(b) / tput(a), 'eb_1_0', 'eb_3_0'), '%.2f'))"

echo "== spawn-dedicated (seed 000: qspinlock/virt_spin_lock 2.41x Intel 120 vCPUs, 1.09x AMD 128 vCPUs)"
# amd-epyc: at the preset's 120 vCPUs, and at the 128 of the seed's EPYC guest
for case in intel-xeon amd-epyc amd-epyc-128; do
  set -- --set profile=${case%-128}
  [ "$case" = amd-epyc-128 ] && set -- "$@" --set vcpus=128 --set pcpus=128
  for lock in qspinlock tas; do
    run sp_${case}_$lock --preset spawn-dedicated "$@" --set lock=$lock
  done
  show "'  $case ops/s: qspinlock %s, tas %s -> %s x' % (
    spread(per_seed(tput, 'sp_${case}_qspinlock'), '%.0f'), spread(per_seed(tput, 'sp_${case}_tas'), '%.0f'),
    spread(per_seed(lambda q, t: tput(q) / tput(t), 'sp_${case}_qspinlock', 'sp_${case}_tas'), '%.2f'))"
done

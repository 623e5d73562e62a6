# script_args.sh - sourced by sim/reproduce.sh and sim/compare_kinds.sh:
# their common arguments.  Sets SIM (the pvspin-sim binary) from $1: the
# binary itself, a directory that holds it (build/dev/tools), or a build
# tree (build/dev, as sim/twin.sh takes); default build/dev/tools/pvspin-sim.
# Sets SEEDS (default 5).  Exits 1 with a message naming the path when no
# pvspin-sim is there, 2 when SEEDS is not a count.
SIM=${1:-build/dev/tools/pvspin-sim}
for d in "$SIM/pvspin-sim" "$SIM/tools/pvspin-sim"; do
  if [ -d "$SIM" ] && [ -f "$d" ] && [ -x "$d" ]; then
    SIM=$d
    break
  fi
done
SEEDS=${SEEDS:-5}
. "$(dirname "$0")/../preload/script_lib.sh"
need_count "$(basename "$0")" SEEDS "$SEEDS"
if [ ! -f "$SIM" ] || [ ! -x "$SIM" ]; then
  echo "pvspin-sim not found at $SIM (build it with make check, or pass the binary," \
       "its directory or the build tree)" >&2
  exit 1
fi

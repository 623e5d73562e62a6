# script_args.sh - sourced by sim/reproduce.sh and sim/compare_kinds.sh:
# their common arguments.  Sets SIM (the pvspin-sim binary: $1, default
# build/dev/tools/pvspin-sim) and SEEDS (default 5), and exits 1 with a
# message naming the path when SIM is not an executable file.
SIM=${1:-build/dev/tools/pvspin-sim}
SEEDS=${SEEDS:-5}
if [ ! -f "$SIM" ] || [ ! -x "$SIM" ]; then
  echo "pvspin-sim not found at $SIM (build it with make check, or pass the path)" >&2
  exit 1
fi

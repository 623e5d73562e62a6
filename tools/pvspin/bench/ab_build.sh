#!/bin/sh
# ab_build.sh - an A/B build of `pvspin bench`: the working tree, plus
# revision REV's spinpark renamed and measured as the lock `spinpark_base`
# (bench/peer_ab.c).  Both run in the same bench run, cell after cell, so
# a change to spinpark is compared with its base under the same noise:
#
#   tools/pvspin/bench/ab_build.sh HEAD            # base = the last commit
#   build/ab/tools/pvspin bench --locks spinpark,spinpark_base --repeat 5
#
# On a noisy 2-vCPU guest (2026-12-07: one thread's speed moved 2-fold
# within minutes) five repeats settle nothing, and separate processes per
# lock even less (16-20 alternated rounds put one unchanged lock at 0.76
# and 1.34 of itself).  What resolved a 5 % change there: one cell per run,
# --repeat 20-30 --duration-ms 300 --json -, and the per-repeat ratios
# ops_per_s_repeats[k] of the two locks (repeat k of both ran in one round):
# their median and geometric mean, with two standard errors of the log
# ratios as the range; the unchanged copy against itself (a base built from
# the working tree's own revision) gave 0.99-1.01, about +-5 %.
#
# usage: ab_build.sh REV [BUILD_DIR]   (default BUILD_DIR: build/ab)
# REV is any git revision with spinpark's side table in src/lock: either
# spinpark_stamp.{c,h} (the wake stamps, from 2026-12-03 evening) or
# spinpark_slice.{c,h} (the slice-mode meter, before).  Its
# include/pvspin/spinpark.h, src/lock/spinpark.c, that side table (as
# spinpark_base_side.{c,h}) and src/lock/lock_hash.h are copied into
# BUILD_DIR/ab_base with every external name prefixed (pvspin_spinpark_ ->
# pvspin_spinpark_base_, sp_ -> spb_, _SP_ -> _SPB_), so the two copies
# share nothing but the platform layer.  A revision with slice mode
# counts its slice events as `unpark` (the events are gone from the
# platform's list; a base lock's events are not reported anyway).  Exit
# 2 on bad usage, 1 if REV lacks a file or the build fails.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: ab_build.sh REV [BUILD_DIR]" >&2
	exit 2
fi
rev=$1
top=$(git rev-parse --show-toplevel)
build=${2:-$top/build/ab}
git -C "$top" rev-parse --verify --quiet "$rev^{commit}" >/dev/null ||
	{ echo "ab_build: '$rev' is not a revision of $top" >&2; exit 2; }
dir=$build/ab_base
mkdir -p "$dir"
rm -f "$dir"/*.c "$dir"/*.h
# both side tables (the wake stamps and the mode controller, from
# 2026-12-05 night): the controller is spinpark_base_slice.{c,h}
both=0
if git -C "$top" cat-file -e "$rev:src/lock/spinpark_stamp.c" 2>/dev/null &&
   git -C "$top" cat-file -e "$rev:src/lock/spinpark_slice.c" 2>/dev/null; then
	both=1
fi
if [ "$both" = 1 ]; then
	slice_h=spinpark_base_slice.h slice_guard=PVSPIN_SPINPARK_BASE_SLICE_H
else
	slice_h=spinpark_base_side.h slice_guard=PVSPIN_SPINPARK_BASE_SIDE_H
fi
copy() { # PATH_IN_REV NAME_IN_DIR
	git -C "$top" show "$rev:$1" > "$dir/$2.tmp" 2>/dev/null ||
		{ echo "ab_build: $rev has no $1" >&2; exit 1; }
	sed -e 's/pvspin_spinpark_/pvspin_spinpark_base_/g' \
	    -e 's/\bsp_/spb_/g' -e 's/_SP_/_SPB_/g' \
	    -e 's/PVSPIN_SPINPARK_H/PVSPIN_SPINPARK_BASE_H/g' \
	    -e "s/PVSPIN_SRC_LOCK_SPINPARK_SLICE_H/$slice_guard/g" \
	    -e "s/PVSPIN_SPINPARK_SLICE_H/$slice_guard/g" \
	    -e 's/PVSPIN_SPINPARK_STAMP_H/PVSPIN_SPINPARK_BASE_SIDE_H/g' \
	    -e 's/PVSPIN_EV_SLICE_ON\b/PVSPIN_EV_UNPARK/g' \
	    -e 's/PVSPIN_EV_SLICE_END\b/PVSPIN_EV_UNPARK/g' \
	    -e 's|"pvspin/spinpark.h"|"spinpark_base.h"|' \
	    -e "s|\"spinpark_slice.h\"|\"$slice_h\"|" \
	    -e 's|"spinpark_stamp.h"|"spinpark_base_side.h"|' \
	    -e 's|"spinpark_word.h"|"spinpark_base_word.h"|' \
	    -e "s|\"wait_note.h\"|\"$top/src/lock/wait_note.h\"|" \
	    -e 's/PVSPIN_SRC_LOCK_SPINPARK_WORD_H/PVSPIN_SPINPARK_BASE_WORD_H/g' \
	    "$dir/$2.tmp" > "$dir/$2"
	rm -f "$dir/$2.tmp"
}
copy include/pvspin/spinpark.h spinpark_base.h
copy src/lock/spinpark.c spinpark_base.c
if git -C "$top" cat-file -e "$rev:src/lock/spinpark_stamp.c" 2>/dev/null; then
	side=spinpark_stamp
else
	side=spinpark_slice
fi
copy src/lock/$side.c spinpark_base_side.c
copy src/lock/$side.h spinpark_base_side.h
if [ "$both" = 1 ]; then
	copy src/lock/spinpark_slice.c spinpark_base_slice.c
	copy src/lock/spinpark_slice.h spinpark_base_slice.h
fi
copy src/lock/lock_hash.h lock_hash.h
# the word's fields and checks, in their own header since 2026-12-05
if git -C "$top" cat-file -e "$rev:src/lock/spinpark_word.h" 2>/dev/null; then
	copy src/lock/spinpark_word.h spinpark_base_word.h
fi
# the backoff step, shared with tas, since 2026-12-07 (3f100e3): the
# revision's own, found beside spinpark_base.c by its #include
if git -C "$top" cat-file -e "$rev:src/lock/backoff.h" 2>/dev/null; then
	copy src/lock/backoff.h backoff.h
fi
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPVSPIN_BENCH_AB_DIR="$dir" >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target pvspin >/dev/null
echo "ab_build: $build/tools/pvspin bench --locks spinpark,spinpark_base  (spinpark_base = $rev's)"

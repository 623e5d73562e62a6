#!/bin/sh
# policy_detect_sources.sh PVSPIN DATA - what `pvspin detect`'s text says
# about where its facts come from (test/policy.cmake, issue 12):
# --root without --cpuid names both sources; the steal figure the picks
# use is the since-boot average, as the library's own pick, and the
# sample over --interval-ms is shown apart, labelled as such; facts that
# could not be read are shown as unknown; an empty --root is refused.
p="$1"; d="$2"; fail=0
bad() { printf 'FAIL: %s\n' "$*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -e "$2" || bad "$3: no '$2' in: $1"; }

out=$("$p" detect --root "$d/root-v1-quota" --interval-ms 0) || bad "root only: exit $?"
has "$out" "sources        CPUID from this machine (use --cpuid FILE for the guest's); CPUs, NUMA, steal, quota and load from --root $d/root-v1-quota" root-only

# live: both figures, each saying what it is
out=$("$p" detect --interval-ms 50) || bad "live: exit $?"
printf '%s\n' "$out" | grep -q '^steal time     [0-9.]*% since boot (what the picks below use, as the library does)$' ||
	bad "live: no since-boot steal line in: $out"
printf '%s\n' "$out" | grep -q '^               [0-9.]*% over the last 50 ms (--interval-ms; not used by the picks)$' ||
	bad "live: no sampled steal line in: $out"
# JSON: steal_pct is the since-boot figure; the sample is apart
out=$("$p" detect --json --interval-ms 50) || bad "live json: exit $?"
has "$out" '"steal_sampled_pct": ' live-json
has "$out" '"steal_interval_ms": 50' live-json
# a copied tree's /proc/stat does not change: no sample, and it says so
out=$("$p" detect --root "$d/root-v1-quota" --interval-ms 20) || bad "static: exit $?"
has "$out" "steal time     0.00% since boot (what the picks below use, as the library does)" static
has "$out" "               no sample: /proc/stat did not change over 20 ms" static

# a --root with nothing readable: what could not be read is unknown, not a fact
nk="$d/root-nothing-known"
out=$("$p" detect --root "$nk" --interval-ms 0) || bad "nothing known: exit $?"
has "$out" "numa nodes     unknown (cannot read /sys/devices/system/node/online; 1 assumed)" nothing-known
has "$out" "cpu quota      unknown (cannot read /proc/self/cgroup; none assumed)" nothing-known
has "$out" "nopvspin       unknown (cannot read /proc/cmdline; \"no\" assumed)" nothing-known
out=$("$p" detect --root "$nk" --interval-ms 0 --json) || bad "nothing known json: exit $?"
has "$out" '"numa_nodes_known": false' nothing-known-json
has "$out" '"nopvspin_known": false' nothing-known-json
# an empty --root (none of the files there): refused, exit 1, nothing on stdout
empty=$(mktemp -d)
out=$("$p" detect --root "$empty" --interval-ms 0 2>/dev/null); r=$?
[ $r -eq 1 ] && [ -z "$out" ] || bad "empty root: exit $r, stdout '$out'"
err=$("$p" detect --root "$empty" --interval-ms 0 2>&1 >/dev/null)
has "$err" "pvspin detect: --root $empty: none of the files detect reads is there (" empty-root
rmdir "$empty"
# a tree that has them: known
out=$("$p" detect --root "$d/root-v1-quota" --interval-ms 0 --json) || bad "v1 json: exit $?"
has "$out" '"cpu_quota_known": true' v1-json

[ $fail -eq 0 ] && echo detect-sources-ok
exit $fail

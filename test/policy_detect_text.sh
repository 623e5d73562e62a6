#!/bin/sh
# policy_detect_text.sh PVSPIN DATA - `pvspin detect`'s text output and
# errors (test/policy.cmake): where the facts come from with --cpuid,
# "unknown" CPU counts, a quoted signature that stays unambiguous, a
# write error named by the subcommand, a directory given as --cpuid, an
# unparsable cgroup cpu.max, --cpuid - (stdin), a quota below 0.01 CPUs, a load average not
# as the kernel writes it, the file behind each unknown fact (a malformed
# proc/stat "cpu" line, an unparsable cpu/online) and a FIFO under --root.  Prints what failed; exit 0 when all hold, 1 otherwise.
p="$1"; d="$2"; fail=0
bad() { printf 'FAIL: %s\n' "$*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -e "$2" || bad "$3: no '$2' in: $1"; }

out=$("$p" detect --cpuid "$d/cpuid/baremetal.txt" --interval-ms 0) || bad "mixed: exit $?"
has "$out" "CPUs, NUMA, steal, quota and load: this machine (use --root DIR for the guest's)" mixed

out=$("$p" detect --cpuid "$d/cpuid/baremetal.txt" --root "$d/root-nothing-known" --interval-ms 0) ||
	bad "root-nothing-known: exit $?"
has "$out" "CPUs, NUMA, steal, quota and load from --root" root-nothing-known
has "$out" "unknown online, unknown possible, unknown allowed" root-nothing-known
has "$out" "pvspin: bare metal, unknown CPUs, not overcommitted" root-nothing-known
printf '%s\n' "$out" | grep -q ' 0 CPUs' && bad "root-nothing-known: '0 CPUs' printed"

# the dump's signature bytes: P v 0x01 s p i n " \ H 0x7f
out=$("$p" detect --cpuid "$d/cpuid/unknown.txt" --root "$d/root-nothing-known" --interval-ms 0) ||
	bad "signature: exit $?"
has "$out" 'signature "Pv\x01spin\"\\H\x7f" at' signature
has "$out" 'unknown hypervisor "Pv\x01spin\"\\H\x7f" without' signature-reason

err=$("$p" detect --interval-ms 0 2>&1 >/dev/full); r=$?
[ $r -eq 1 ] || bad "/dev/full: exit $r"
[ "$err" = "pvspin detect: cannot write to standard output: No space left on device" ] ||
	bad "/dev/full: stderr '$err'"

err=$("$p" detect --cpuid "$d/cpuid" --interval-ms 0 2>&1 >/dev/null); r=$?
[ $r -eq 1 ] || bad "directory cpuid: exit $r"
has "$err" "pvspin detect: --cpuid $d/cpuid: cannot read: Is a directory" directory-cpuid
# an empty path is a bad value of the command line (--cpuid "$F" with F
# unset), exit 2 in the words of bench's and sim's empty --json (it was
# exit 1, "--cpuid '': No such file or directory"); a path that does not
# show (a blank) is quoted as every such value (tool_value_quote())
err=$("$p" detect --cpuid "" --interval-ms 0 2>&1 >/dev/null); r=$?
[ $r -eq 2 ] || bad "empty cpuid path: exit $r"
[ "$err" = "pvspin detect: --cpuid: empty file name (expected a FILE, or - for standard input)" ] ||
	bad "empty cpuid path: stderr '$err'"
err=$("$p" detect --cpuid " x" --interval-ms 0 2>&1 >/dev/null); r=$?
[ $r -eq 1 ] || bad "blank cpuid path: exit $r"
[ "$err" = "pvspin detect: --cpuid ' x': No such file or directory" ] ||
	bad "blank cpuid path: stderr '$err'"
err=$("$p" detect --root "" --interval-ms 0 2>&1 >/dev/null); r=$?
[ $r -eq 2 ] || bad "empty root: exit $r"
[ "$err" = "pvspin detect: --root: empty file name (expected a DIR, / for this machine)" ] ||
	bad "empty root: stderr '$err'"

# an unparsable cpu.max: a warning naming the file and its content, the
# quota "unknown" (not "none"), exit 0 (as any unreadable /proc or /sys file)
out=$("$p" detect --root "$d/root-bad-quota" --interval-ms 0 2>&1); r=$?
[ $r -eq 0 ] || bad "bad quota: exit $r"
has "$out" "pvspin detect: warning: $d/root-bad-quota/sys/fs/cgroup/app/cpu.max: '100' is not a cgroup CPU quota" bad-quota
has "$out" "cpu quota      unknown (a quota file does not parse, see the warning; none assumed)" bad-quota
err=$("$p" detect --json --policy pvspin --root "$d/root-bad-quota" --interval-ms 0 2>&1 >/dev/null)
has "$err" "cpu.max: '100' is not a cgroup CPU quota" bad-quota-json

# an unknown fact names the file it could not read: a "cpu" line of
# proc/stat that is not well-formed (too few fields, not a number) as a
# missing one, an online cpulist that does not parse
for r in root-stat-few-fields root-stat-not-number root-nothing-known; do
	out=$("$p" detect --root "$d/$r" --interval-ms 0) || bad "$r: exit $?"
	has "$out" 'steal time     unknown (the "cpu" line of /proc/stat is missing or malformed; none assumed)' "$r"
	printf '%s\n' "$out" | grep -q 'since boot' && bad "$r: a steal figure in: $out"
done
out=$("$p" detect --root "$d/root-online-garbage" --interval-ms 0) || bad "online garbage: exit $?"
has "$out" "cpus           unknown online, 8 possible, unknown allowed (missing or malformed: /sys/devices/system/cpu/online, the Cpus_allowed_list line of /proc/self/status)" online-garbage
out=$("$p" detect --root "$d/root-nothing-known" --interval-ms 0) || bad "root-nothing-known: exit $?"
has "$out" "unknown allowed (missing or malformed: /sys/devices/system/cpu/online, /sys/devices/system/cpu/possible, the Cpus_allowed_list line of /proc/self/status)" nothing-known-cpus
has "$out" "runnable       unknown (missing or malformed: /proc/loadavg)" nothing-known-runnable
out=$("$p" detect --root "$d/root-v2-quota" --interval-ms 0) || bad "root-v2: exit $?"
printf '%s\n' "$out" | grep -q '^cpus .*(missing or malformed' && bad "root-v2: a reason for known counts in: $out"

# a load average only as the kernel writes it ("%lu.%02lu"): inf, hex, an
# exponent or a huge number is unknown, in the text and in the JSON (which
# failed silently on inf)
t=$(mktemp -d) && cp -R "$d/root-v2-quota" "$t/r" || exit 1
for l in "inf 1 1" "0x10 1 1" "1.5e1 1 1" "1e308" "1000000001.00 1 1"; do
	echo "$l" > "$t/r/proc/loadavg"
	out=$("$p" detect --root "$t/r" --interval-ms 0) || bad "loadavg '$l': exit $?"
	has "$out" "runnable       unknown (missing or malformed: /proc/loadavg)" "loadavg '$l'"
	out=$("$p" detect --root "$t/r" --interval-ms 0 --json 2>&1) || bad "loadavg '$l' json: exit $?"
	has "$out" '"runnable": null' "loadavg '$l' json"
done
echo "2.50 1.00 0.50 3/100 42" > "$t/r/proc/loadavg"
out=$("$p" detect --root "$t/r" --interval-ms 0) || bad "loadavg 2.50: exit $?"
has "$out" "runnable       2.50 (1-minute load average)" "loadavg 2.50"
rm -rf "$t"

# the kernel's smallest quota (1 ms per 1 s period) is not printed as 0.00
t=$(mktemp -d) && cp -R "$d/root-v2-quota" "$t/r" &&
	echo "1000 1000000" > "$t/r/sys/fs/cgroup/app/job/cpu.max" || exit 1
out=$("$p" detect --root "$t/r" --interval-ms 0) || bad "tiny quota: exit $?"
rm -rf "$t"
has "$out" "cpu quota      0.00100 CPUs (cgroup)" tiny-quota
has "$out" "CPU quota 0.00100 CPUs below" tiny-quota-reason

# --cpuid - reads the dump from stdin, as `pvspin sim -` reads a scenario
# (it was taken as a file named '-': "-: No such file or directory", exit 1);
# the output and the errors name it <stdin>
out=$("$p" detect --cpuid - --interval-ms 0 < "$d/cpuid/hyperv-kvm.txt") || bad "stdin: exit $?"
has "$out" "sources        CPUID from <stdin>; CPUs, NUMA" stdin
has "$out" 'signature "Microsoft Hv"' stdin
has "$out" "kvm interface  at 0x40000100" stdin
out=$("$p" detect --json --cpuid - --interval-ms 0 < "$d/cpuid/hyperv-kvm.txt") || bad "stdin json: exit $?"
has "$out" '"cpuid": "<stdin>"' stdin-json
err=$("$p" detect --cpuid - --interval-ms 0 < "$d/cpuid/malformed.txt" 2>&1 >/dev/null); r=$?
[ $r -eq 1 ] || bad "stdin malformed: exit $r"
has "$err" "pvspin detect: --cpuid <stdin>:4: malformed CPUID line" stdin-malformed
err=$("$p" detect --cpuid - --interval-ms 0 < "$d/cpuid/no-leaf1.txt" 2>&1 >/dev/null); r=$?
[ $r -eq 1 ] || bad "stdin no leaf 1: exit $r"
has "$err" "pvspin detect: --cpuid <stdin>: no leaf 0x00000001" stdin-no-leaf1
err=$("$p" detect --cpuid - --interval-ms 0 < /dev/null 2>&1 >/dev/null); r=$?
[ $r -eq 1 ] || bad "stdin empty: exit $r"
has "$err" "pvspin detect: --cpuid <stdin>: empty" stdin-empty
# help text says so
has "$("$p" detect --help)" "- for standard input" stdin-help

t=$(mktemp -d) && mkdir -p "$t/proc" && mkfifo "$t/proc/cmdline" && mkfifo "$t/proc/stat" || exit 1
out=$(timeout 30 "$p" detect --root "$t" --interval-ms 50); r=$?
rm -rf "$t"
[ $r -eq 0 ] || bad "fifo root: exit $r (124: it hung)"
has "$out" "nopvspin       unknown (cannot read /proc/cmdline" fifo-root

[ $fail -eq 0 ] && echo detect-text-ok
exit $fail

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What config/udev/60-cmabuf.rules does on a real system, and cmabufctl
# for users who are not root. The rule's match keys are checked against
# every misc and dma-heap device of the running kernel (the named
# instances' nodes, not the default CMA area's /dev/cmabuf, which stays
# root's); then those nodes get what the rule gives them (group video,
# 0660), and cmabufctl runs as a member of video (allocates from a named
# instance, and is told of its cap for users past it; is refused the
# default one with the reason; the test bed's in-kernel bench,
# cmabuf_testctl, says the debugfs file is root's and fails, having
# measured nothing) and as a user
# outside it (told which group to join; info still describes every
# instance from sysfs). The nodes are given back to root, 0600, at the end. Runs after heap-defaults,
# so that the heaps exist where the kernel allows them.

. /suites/tap-lib.sh

rules=/etc/60-cmabuf.rules
video=44
cam=1000
nobody=65534

# rule_matches SUBSYSTEM NAME: does a line of the rule match the device?
rule_matches() {
	sed -n 's/^SUBSYSTEM=="\([^"]*\)", KERNEL=="\([^"]*\)".*/\1 \2/p' "$rules" |
		while read -r subsystem glob; do
			[ "$subsystem" = "$1" ] || continue
			# shellcheck disable=SC2254 # the glob is the rule's
			case $2 in
			$glob) echo match; break ;;
			esac
		done | grep -q match
}

# run CMD...: output in $out (stdout and stderr), exit status in $rc.
run() {
	out=$("$@" 2>&1)
	rc=$?
}

diag() {
	[ "$1" -eq 0 ] || echo "$out" | sed 's/^/# /'
}

echo "TAP version 13"
if [ ! -f "$rules" ] || [ ! -x /usr/bin/runas ]; then
	echo "Bail out! $rules or runas missing from the initramfs"
	exit 1
fi
echo "1..10"

# 1. The rule matches exactly the named instances' devices, in the
#    subsystems the kernel puts them in; the default instance stays root's.
r=0 ours=0
for dev in /sys/class/misc/* /sys/class/dma_heap/*; do
	[ -e "$dev" ] || continue
	name=${dev##*/}
	subsystem=$(basename "$(readlink -f "$dev/subsystem")")
	case $name in
	cmabuf-*) want=match ours=$((ours + 1)) ;;
	*) want=none ;;
	esac
	got=none
	rule_matches "$subsystem" "$name" && got=match
	if [ "$got" != "$want" ]; then
		echo "# $subsystem/$name: rule says $got, should be $want"
		r=1
	fi
done
heaps=$(ls -d /sys/class/dma_heap/cmabuf* 2>/dev/null | wc -l)
[ "$ours" -ge 2 ]
ok $((r | $?)) "the rule matches the $ours devices of named instances ($heaps cmabuf heaps in all), not the default instance's, and nothing else"

# 2. What udev would do with it.
printf 'root:x:0:0::/root:/bin/sh\ncam:x:%s:%s::/tmp:/bin/sh\nnobody:x:%s:%s::/:/bin/sh\n' \
	$cam $cam $nobody $nobody >/etc/passwd
printf 'root:x:0:\nvideo:x:%s:cam\nnogroup:x:%s:\n' $video $nobody >/etc/group
nodes=$(ls /dev/cmabuf-* /dev/dma_heap/cmabuf-* 2>/dev/null)
# shellcheck disable=SC2086 # one node per word
chgrp $video $nodes && chmod 0660 $nodes
ok $? "$(echo $nodes | wc -w) nodes given to group video, 0660"

# 3. A member of video allocates from a named instance.
run runas $cam $video cmabufctl alloc 1MiB --device general --verify
[ $rc -eq 0 ] && echo "$out" | grep -q "zeroed on allocation: all 1048576 bytes are 0x00: ok" &&
	echo "$out" | grep -q "phys unknown (needs CAP_SYS_RAWIO)"
r=$?; ok $r "a member of video allocates, zeroed; the physical address needs CAP_SYS_RAWIO"
diag $r

# ... up to the instance's cap for each user without CAP_SYS_ADMIN, and is
# told of it past it; info shows the cap to anyone.
capfile=/sys/class/misc/cmabuf-general/unprivileged_max_bytes
oldcap=$(cat $capfile)
echo 1048576 >$capfile
run runas $cam $video cmabufctl alloc 2MiB --device general
shown=$(runas $nobody - cmabufctl info --device general | sed -n 's/^  user cap    //p')
echo "$oldcap" >$capfile
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	echo "$out" | grep -q "/dev/cmabuf-general: a buffer of 2 MiB would go past the instance's cap for callers without CAP_SYS_ADMIN: 1 MiB for each user, its live and prepared buffers together (unprivileged_max_bytes; 0 B held by all such users)" &&
	[ "$shown" = "1 MiB for each user, 0 B held by all (callers without CAP_SYS_ADMIN)" ]
r=$?; ok $r "a member of video past the cap: EDQUOT, the cap and what is held; info shows it ($shown)"
diag $r

# ... but not from the default CMA area, and is told why; without -d it
# gets the first instance it may open, and is told which.
run runas $cam $video cmabufctl alloc 1MiB --device default
d_rc=$rc d_out=$out
run runas $cam $video cmabufctl alloc 1MiB
[ $d_rc -eq 1 ] && [ "$(echo "$d_out" | wc -l)" -eq 1 ] &&
	echo "$d_out" | grep -q "/dev/cmabuf: permission denied: /dev/cmabuf is crw------- root:root: the default CMA area, which other drivers depend on, is root's" &&
	[ $rc -eq 0 ] && echo "$out" | grep -q "^fd [0-9]*, size 1 MiB (1048576 bytes), strategy [a-z]*, from /dev/cmabuf-general$"
r=$?; ok $r "a member of video is refused the default instance (told it is root's), and without -d allocates from the first named one, said"
[ $r -eq 0 ] || out="$d_out
$out"; diag $r

# 4. ... but cannot time the allocator: told why, and bench fails.
run runas $cam $video cmabuf_testctl bench contig-64m --iterations 1
[ $rc -eq 1 ] && echo "$out" | grep -q "the bench file in /sys/kernel/debug/cmabuf is root's (run as root)" &&
	echo "$out" | grep -q "bench: measured nothing"
r=$?; ok $r "bench without root says the bench file is root's and exits 1"
diag $r

# 5. Outside video: one line naming the group.
run runas $nobody - cmabufctl alloc 1M --device general
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	echo "$out" | grep -q "/dev/cmabuf-general: permission denied: /dev/cmabuf-general is crw-rw---- root:video: join group video"
r=$?; ok $r "outside video: one line naming the group to join"
diag $r

# 6. info still describes every instance, from sysfs.
root_areas=$(cmabufctl info | sed -n 's/^  area *//p' | xargs)
run runas $nobody - cmabufctl info
areas=$(echo "$out" | sed -n 's/^  area *//p' | xargs)
[ $rc -eq 0 ] && [ -n "$areas" ] && [ "$areas" = "$root_areas" ] &&
	[ "$(echo "$out" | grep -c '^  live ')" -eq "$(echo "$areas" | wc -w)" ]
r=$?; ok $r "info without access to the nodes: every instance, its area and live buffers ($areas)"
diag $r

# 7. The JSON of such a user has the same keys as root's.
keys() {
	grep -o '"[a-z_]*": ' | sort -u | xargs
}
root_keys=$(cmabufctl info --json | keys)
run runas $nobody - cmabufctl info --json
[ $rc -eq 0 ] && [ "$(echo "$out" | keys)" = "$root_keys" ] &&
	[ "$(echo "$out" | grep -o '"source": "sysfs"' | wc -l)" -eq "$(echo "$areas" | wc -w)" ]
r=$?; ok $r "info --json without access: same keys as root's, source sysfs"
diag $r

# 8. The nodes back as the kernel made them.
# shellcheck disable=SC2086
chgrp 0 $nodes && chmod 0600 $nodes
ok $? "nodes back to root, 0600"
[ $fails -eq 0 ]

#!/bin/bash
# VM scenario: rdma-doctor on a real soft-RoCE port.  The healthy rxe0 passes
# (or SKIPs, with the reason, what rxe lacks: PCI, firmware, ECN, DCB); then
# each fault of the issue is made for real and the verdict must change to the
# right check with the right fix, in text, JSON and NHC form, and go back when
# the fault is undone.  Faults: netdev MTU 1500 / 4200 / 9000, the netdev down,
# the IPv4 address removed, IPv6 disabled, a second rxe on a dummy netdev in
# the same subnet, rdma_cm configfs (v1 refused by rxe; ToS read back), a tiny
# `ulimit -l`, an unprivileged caller, error counters rising during a sample.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

D=$RD_ROOT/build/rdma-doctor
DEV=${VM_RDMA_DEV:-rxe0}
NET=${VM_NETDEV:-eth0}
CFG=/sys/kernel/config/rdma_cm

# doc NAME RC ERE ARGS... -- rdma-doctor ARGS exits RC and a line of its output matches ERE.
doc() {
	local name=$1 want=$2 re=$3
	shift 3
	vm_check_exit "$name" "$want" "$re" "$D" "$@"
}
# no_line NAME ERE ARGS... -- no line of rdma-doctor ARGS's output matches ERE.
no_line() {
	local name=$1 re=$2
	shift 2
	_vm_capture "$D" "$@"
	if ! grep -Eq -- "$re" "$_vm_out"; then
		vm_pass "$name"
		return 0
	fi
	vm_fail "$name" "rdma-doctor $* printed a line matching: $re"
	_vm_detail "$_vm_out"
	return 1
}
# last -- copy the last capture aside (a check that captures again reuses its file).
last() { cp "$_vm_out" /tmp/doctor.last; }
gid_back() { "$RD_ROOT/build/rdma-gids" --best -d "$DEV" | grep -q "$VM_IP"; }

orig_mtu=$(cat "/sys/class/net/$NET/mtu")
ip link set "$NET" mtu 4200
# ---- healthy: exit 0; every port check PASSes; what rxe lacks is a SKIP with the reason
doc "healthy: exit 0, verdict line" 0 "^(PASS|WARN): [0-9]+ checks on 1 device, 1 port: " --interval 0
for id in dev.present dev.rdma_cm sys.modules sys.stack ns.mode dev.provider dev.uverbs dev.driver \
	port.state port.rate roce.netdev roce.gid roce.mtu roce.ipv6 roce.gid_table roce.cm_mode \
	roce.subnet ns.gid; do
	doc "healthy: $id PASS" 0 "^$id +[^ ]+ +PASS " -v --interval 0 --only "$id"
done
# The stack: Debian's kernel modules (no mlx_compat) and rdma-core's user space.
doc "healthy: sys.stack PASS inbox, both halves" 0 \
	"^sys\.stack +node +PASS +inbox \(libibverbs1? [0-9][^;]*; the kernel's own modules\)" \
	-v --interval 0 --only sys.stack
vm_check_eq "devinfo -v -j: the stack is inbox, kernel and user space" "inbox inbox inbox" \
	"$("$RD_ROOT/build/rdma-devinfo" -v -j -d "$DEV" | jq -r '.[0] | "\(.stack) \(.stack_kernel) \(.stack_user)"' 2>&1)"
doc "healthy: the GID is rxe0's IPv4 one" 0 "^roce\.gid +$DEV/1 +PASS +index [0-9]+: RoCE v2, $VM_IP on $NET" -v --interval 0 --only roce.gid
doc "healthy: MTU 4200 gives 4096" 0 "^roce\.mtu +$DEV/1 +PASS +$NET MTU 4200 gives active_mtu 4096" -v --interval 0 --only roce.mtu
doc "rxe: pci.link SKIP (soft device)" 0 "^pci\.link +$DEV +SKIP +$DEV is not on PCI" --interval 0
doc "rxe: fw.uniform SKIP" 0 "^fw\.uniform +$DEV +SKIP .*no firmware" --interval 0
doc "rxe: roce.ecn SKIP (no ecn directory)" 0 "^roce\.ecn +$DEV/1 +SKIP .*no $NET/ecn" --interval 0
doc "rxe: roce.pfc SKIP (no DCB ops, asked over netlink)" 0 "^roce\.pfc +$DEV/1 +SKIP .*no DCB support" --interval 0
# ---- a real kernel's PCI tree without a GPU: every GPU check SKIPs, never PASSes (issue #43)
doc "no GPU: the gdr group checks nothing, exit 1" 1 "^nothing was checked" --interval 0 --only gdr,pci.acs,iommu,gpu,pci.gpu_link,topo
doc "no GPU: the gdr checks' SKIPs are one line with the reason" 1 "^gdr\.\*: SKIP, no GPU on this node\$" -v --interval 0 --only gdr
doc "no GPU: -j keeps gdr.backend's SKIP with the reason" 1 '"check": "gdr\.backend"' -j --interval 0 --only gdr
vm_check_exit "no GPU: rdma-gpumap says so, exit 1" 1 "no GPU found" "$RD_ROOT/build/rdma-gpumap" --no-env
no_line "healthy: no FAIL line" " FAIL " --interval 0
_vm_capture "$D" -j --interval 0
vm_schema rdma-doctor "$_vm_out"
vm_check_eq "healthy -j: one JSON document, verdict not fail" "true" \
	"$(jq -r '.verdict != "fail" and (.results | length) > 0' "$_vm_out" 2>&1)"
vm_check_eq "healthy -j: summary counts add up" "true" \
	"$(jq -r '.summary | .pass + .warn + .fail + .skip == .checks' "$_vm_out" 2>&1)"
vm_check_eq "healthy -j: per-port results carry dev and port" "$DEV 1" \
	"$(jq -r '[.results[] | select(.check == "roce.gid")][0] | "\(.dev) \(.port)"' "$_vm_out" 2>&1)"
# NHC: silent and 0 when nothing fails
_vm_capture "$D" --nhc --interval 0
vm_check_eq "healthy --nhc: silent exit 0" "0:" "$_vm_rc:$(cat "$_vm_out")"

# ---- --selftest: the engine's loopback on the ACTIVE port
doc "--selftest: loopback RC passes on rxe" 0 \
	"^selftest\.loopback +$DEV/1 +PASS +loopback RC: 200 messages of 4096 B verified both ways in [0-9.]+ ms, GID index [0-9]+" \
	-v --selftest --interval 0 --only selftest.loopback

# ---- MTU: 1500 yields 1024 (WARN with the fix); 9000 yields 4096 and says so
ip link set "$NET" mtu 1500
doc "MTU 1500: roce.mtu WARN, fix names 4200" 0 \
	"^roce\.mtu +$DEV/1 +WARN +$NET MTU 1500 gives active_mtu 1024; 4200 is needed for 4096 +ip link set dev $NET mtu 4200" --interval 0
ip link set "$NET" mtu 9000
doc "MTU 9000: roce.mtu PASS, says what it yields" 0 "^roce\.mtu .*PASS +$NET MTU 9000 gives active_mtu 4096" -v --interval 0 --only roce.mtu
ip link set "$NET" mtu 4200
printf 'mtu = 9000\n' >/tmp/doctor.expect
doc "--expect mtu=9000 on MTU 4200: FAIL naming both" 1 "^roce\.mtu +$DEV/1 +FAIL +$NET MTU 4200, expected 9000 +ip link set dev $NET mtu 9000" --interval 0 --expect /tmp/doctor.expect
printf 'devices = 1\nlink_layer = Ethernet\nroce_mode = v2\nactive_mtu = 4096\n' >/tmp/doctor.expect
no_line "--expect matching this node: no FAIL" " FAIL " --interval 0 --expect /tmp/doctor.expect
printf 'mtu = 4200\nbogus line\n' >/tmp/doctor.expect
_vm_capture "$D" --interval 0 --expect /tmp/doctor.expect
vm_check_eq "--expect malformed: usage error naming line 2" "2 1" \
	"$_vm_rc $(grep -c 'line 2' "$_vm_out")"

# ---- the netdev down: port.state, roce.netdev and roce.gid FAIL; NHC says the first
ip link set "$NET" down
port_down() { "$D" --interval 0 --only port.state >/dev/null; [ $? = 1 ]; }
vm_retry 20 port_down
doc "link down: port.state FAIL with the fix" 1 "^port\.state +$DEV/1 +FAIL +DOWN.* +ip link set dev $NET up" --interval 0
doc "link down: roce.netdev FAIL" 1 "^roce\.netdev +$DEV/1 +FAIL +$NET operstate down" --interval 0
doc "link down: roce.gid FAIL (netdevs down)" 1 "^roce\.gid +$DEV/1 +FAIL +no usable GID" --interval 0
doc "link down: verdict line FAIL" 1 "^FAIL: [0-9]+ checks on 1 device, 1 port: .* [1-9][0-9]* fail" --interval 0
_vm_capture "$D" --nhc --interval 0
vm_check_eq "link down --nhc: exit 1, one ERROR line" "1 1" "$_vm_rc $(wc -l <"$_vm_out")"
last
vm_check_output "link down --nhc: the NHC contract line" \
	"^ERROR: rdma-doctor: port\.state: $DEV/1: DOWN.*\(and [0-9]+ more failures?\)$" cat /tmp/doctor.last
_vm_capture "$D" -j --interval 0
vm_schema rdma-doctor "$_vm_out"
vm_check_eq "link down -j: verdict fail, port.state fail with its fix" "fail fail ip link set dev $NET up; ethtool $NET" \
	"$(jq -r '.verdict + " " + ([.results[] | select(.check == "port.state")][0] | .status + " " + .fix)' "$_vm_out" 2>&1)"
ip link set "$NET" up
vm_retry 30 gid_back
doc "link up again: exit 0" 0 "^(PASS|WARN): " --interval 0

# ---- the IPv4 address removed: only the link-local GID is left.  Usable on
# this link only: rdma-gids --best gives it and says so, rdma-doctor WARNs with
# the same words (issue #46: the tools agree), --nhc stays silent (a WARN).
ip addr del "$VM_IP/24" dev "$NET"
no_v4() { "$D" --interval 0 --only roce.gid | grep -q "link-local only"; }
vm_retry 20 no_v4
doc "no IPv4: roce.gid WARN, link-local only, fix adds an address" 0 \
	"^roce\.gid +$DEV/1 +WARN +index [0-9]+: RoCE v2, link-local .*link-local only: this L2 segment.* +ip addr add ADDR/PREFIX dev $NET" \
	--interval 0 --only roce.gid
vm_check_exit "no IPv4: rdma-gids --best gives the link-local index and says so" 0 \
	"^$DEV 1 [0-9]+ \(RoCE v2, link-local fe80:.*link-local only: this L2 segment" "$RD_ROOT/build/rdma-gids" --best -d "$DEV"
_vm_capture "$D" --nhc --interval 0 --only roce.gid
last
vm_check_eq "no IPv4 --nhc: a WARN prints nothing (healthy for NHC)" "0 0" "$_vm_rc $(wc -c </tmp/doctor.last)"
ip addr add "$VM_IP/24" dev "$NET"
vm_retry 30 gid_back

# ---- IPv6 disabled: no link-local GID (WARN with the sysctl that fixes it)
sysctl -qw "net.ipv6.conf.$NET.disable_ipv6=1"
doc "disable_ipv6=1: roce.ipv6 WARN with the sysctl" 0 \
	"^roce\.ipv6 +$DEV/1 +WARN +IPv6 disabled on $NET.* +sysctl -w net\.ipv6\.conf\.$NET\.disable_ipv6=0" --interval 0
sysctl -qw "net.ipv6.conf.$NET.disable_ipv6=0"
doc "IPv6 back: roce.ipv6 PASS" 0 "^roce\.ipv6 +$DEV/1 +PASS" -v --interval 0 --only roce.ipv6

# ---- a second RoCE netdev in the same subnet with default arp sysctls
modprobe dummy 2>/dev/null
ip link add dumrd type dummy
ip link set dumrd up
ip addr add 10.10.0.77/24 dev dumrd
rdma link add rxe9 type rxe netdev dumrd
two() { "$D" --interval 0 --only roce.subnet 2>/dev/null | grep -q "rxe9/1"; }
vm_retry 20 two
doc "two netdevs, one subnet: roce.subnet WARN on rxe0 naming the other" 0 \
	"^roce\.subnet +$DEV/1 +WARN +$NET shares 10\.10\.0\.0/24 with dumrd; arp_ignore 0, arp_announce 0.* +sysctl -w net\.ipv4\.conf\.$NET\.arp_ignore=1 net\.ipv4\.conf\.$NET\.arp_announce=2" --interval 0
doc "two netdevs: the verdict counts 2 devices" 0 "^WARN: [0-9]+ checks on 2 devices, 2 ports" --interval 0
doc "-d rxe0 limits the per-device checks to rxe0" 0 "on 1 device, 1 port" -d "$DEV" --interval 0
sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
doc "arp_ignore=1 arp_announce=2 (all): roce.subnet PASS" 0 "^roce\.subnet +$DEV/1 +PASS +$NET shares 10\.10\.0\.0/24 with dumrd; arp_ignore 1, arp_announce 2" \
	-v --interval 0 --only roce.subnet
sysctl -qw net.ipv4.conf.all.arp_ignore=0 net.ipv4.conf.all.arp_announce=0
rdma link del rxe9
ip link del dumrd
gone() { ! "$D" --interval 0 --only roce.subnet 2>/dev/null | grep -q rxe9; }
vm_retry 20 gone
doc "second rxe gone: one device again" 0 "on 1 device, 1 port" --interval 0

# ---- rdma_cm configfs: the doctor reads the per-port default mode and ToS
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
modprobe rdma_cm 2>/dev/null
if [ -d "$CFG" ] && mkdir "$CFG/$DEV" 2>/dev/null; then
	doc "configfs: roce.cm_mode PASS reads 'RoCE v2'" 0 "^roce\.cm_mode +$DEV/1 +PASS +rdma_cm default 'RoCE v2', ToS 0" \
		-v --interval 0 --only roce.cm_mode
	# rxe is RoCE v2 only (core_cap_flags ROCE_UDP_ENCAP): the kernel refuses v1, so the
	# v1 verdict is proven on the doctor-roce-config fixture; here: the refusal, and the
	# doctor still reads v2.
	vm_check_fails "configfs: rxe refuses default_roce_mode 'IB/RoCE v1' (v2-only device)" \
		sh -c "echo 'IB/RoCE v1' > $CFG/$DEV/ports/1/default_roce_mode"
	echo 106 >"$CFG/$DEV/ports/1/default_roce_tos"
	doc "configfs: ToS 106 read back" 0 "^roce\.cm_mode +$DEV/1 +PASS +rdma_cm default 'RoCE v2', ToS 106" \
		-v --interval 0 --only roce.cm_mode
	printf 'roce_mode = v1\n' >/tmp/doctor.expect
	doc "--expect roce_mode=v1 against configfs v2: FAIL naming both" 1 "^roce\.cm_mode +$DEV/1 +FAIL .*RoCE v2.*v1" \
		--interval 0 --expect /tmp/doctor.expect
	echo 0 >"$CFG/$DEV/ports/1/default_roce_tos"
	rmdir "$CFG/$DEV"
else
	vm_skip "configfs rdma_cm checks" "no $CFG (configfs or rdma_cm missing)"
fi

# ---- RLIMIT_MEMLOCK: a tiny limit WARNs with the fix; unlimited PASSes
_vm_capture bash -c "ulimit -l 64; exec '$D' --interval 0"
last
vm_check_output "ulimit -l 64: sys.memlock WARN names 64 KiB and the fix" \
	"^sys\.memlock +node +WARN +RLIMIT_MEMLOCK 64 KiB.* +ulimit -l unlimited" cat /tmp/doctor.last
_vm_capture bash -c "ulimit -l unlimited; exec '$D' -v --interval 0 --only sys.memlock"
last
vm_check_output "ulimit -l unlimited: sys.memlock PASS" "^sys\.memlock +node +PASS +RLIMIT_MEMLOCK unlimited" cat /tmp/doctor.last

# ---- unprivileged: runs, no crash, still a verdict (what needs root is a SKIP with the reason)
_vm_capture vm_as_nobody "$D" -j --interval 0
vm_check_eq "as nobody: exit 0 or 1 with a JSON verdict" "ok" \
	"$( { [ "$_vm_rc" -le 1 ] && jq -e '.verdict' "$_vm_out" >/dev/null; } && echo ok || echo "rc $_vm_rc")"

# ---- error counters: a link flap during the sample raises rxe's link_downed.
# The flap comes 4 s into a 10 s sample: the doctor's first reading (after its
# start-up, which takes over a second on a loaded emulated CPU) must precede it.
vm_retry 30 gid_back
"$D" -j --interval 10 --only port.errors >/tmp/doctor.during 2>&1 &
pid=$!
vm_sleep 4
ip link set "$NET" down
vm_sleep 0.5
ip link set "$NET" up
wait "$pid"
rc=$?
vm_check_eq "link flap during --interval 10: port.errors FAIL, exit 1" "fail 1" \
	"$(jq -r '.results[0].status' /tmp/doctor.during 2>&1) $rc"
vm_check_output "... the detail names link_downed rising" "errors rising over 10 s: .*link_downed" \
	jq -r '.results[0].detail' /tmp/doctor.during
vm_retry 30 gid_back
doc "after the flap: not rising, WARN names link_downed" 0 "^port\.errors +$DEV/1 +WARN +.*link_downed [0-9]+.*\(not rising\)" \
	--interval 1 --only port.errors

ip link set "$NET" mtu "$orig_mtu"	# as found
vm_retry 30 gid_back
vm_schema_check
vm_check "rdma-doctor scenarios: no kernel warnings" vm_dmesg_clean

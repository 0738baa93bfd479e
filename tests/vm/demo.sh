#!/bin/bash
# make demo, VM a (10.10.0.1, shown on the terminal): every rdma-diag tool on
# the real soft-RoCE device rxe0, one section per tool. VM b runs
# demo-peer.sh (the rdma-selftest server). `make check` runs the pair too.
# A new tool is one more section: demo_section, demo_run, demo_check.
# shellcheck source=tests/vm/demo-lib.sh
. "$RD_ROOT/tests/vm/demo-lib.sh"
set -u
if [ "${VM_MODE:-}" != pair ]; then
	vm_fail "demo.sh needs its peer VM" "run.sh --pair tests/vm/demo.sh tests/vm/demo-peer.sh"
	exit 1
fi
NET=${VM_NETDEV:-eth0}
DEV=${VM_RDMA_DEV:-rxe0}
SYS=/sys/class/infiniband/$DEV/ports/1
evpid=""

cleanup() {
	[ -z "$evpid" ] || kill -KILL "$evpid" 2>/dev/null
	ip link delete "$NET.100" 2>/dev/null
	ip -6 addr del 2001:db8:10::1/64 dev "$NET" 2>/dev/null
	ip addr del 10.10.0.9/24 dev "$NET" 2>/dev/null
	ip link set "$NET" up
	vm_signal demo-done
}
trap cleanup EXIT
# After a link flap: port ACTIVE again and the IPv4 GID back.
port_back() {
	vm_retry 30 grep -q ACTIVE "$SYS/state" && vm_retry 30 vm_gid_index "$DEV" "$VM_IP"
}

echo "rdma-diag demo: Linux $(uname -r) under qemu, soft-RoCE $DEV on $NET ($VM_IP);"
echo "a second VM ($PEER_IP) on the same link runs 'rdma-selftest --server'."
demo_note "a richer GID table first: a global IPv6 address and a VLAN with its own address"
demo_do modprobe 8021q
demo_do ip -6 addr add 2001:db8:10::1/64 dev "$NET" nodad
demo_do ip link add link "$NET" name "$NET.100" type vlan id 100
demo_do ip link set "$NET.100" up
demo_do ip addr add 10.100.0.1/24 dev "$NET.100"
vm_retry 10 vm_gid_index "$DEV" 10.100.0.1

demo_section rdma-devinfo "each RDMA device: type, link layer, ports, state, firmware, GUID, netdevs"
demo_run rdma-devinfo
demo_check "rdma-devinfo: $DEV, RoCE, ACTIVE, on $NET and $NET.100" "^$DEV +CA +RoCE +1 +ACTIVE .* $NET,$NET\.100\$"
demo_note "(-v adds every sysfs attribute and the device's verbs limits, -j is JSON)"
demo_run -e 1 rdma-devinfo -d nosuch
demo_check "rdma-devinfo -d nosuch: one-line error naming the known devices" "nosuch: .*$DEV"

demo_section rdma-gids "the GID table (index, type, address, netdev, VLAN) and which index to use"
demo_run rdma-gids
demo_check "rdma-gids: the IPv4 RoCE v2 GID of $VM_IP" \
	"^$DEV +1 +[0-9]+ +0000:0000:0000:0000:0000:ffff:0a0a:0001 +$VM_IP +v2 +$NET +-\$"
demo_check "rdma-gids: the VLAN's GID, VLAN 100" "^$DEV +1 +[0-9]+ +[0-9a-f:]+ +10\.100\.0\.1 +v2 +$NET\.100 +100\$"
demo_run rdma-gids --best
demo_check "rdma-gids --best: the IPv4 RoCE v2 index" \
	"^$DEV 1 $(vm_gid_index "$DEV" "$VM_IP") \(RoCE v2, $VM_IP on $NET\)\$"
demo_run rdma-gids --best --vlan 100
demo_check "rdma-gids --best --vlan 100: the VLAN's index" \
	"^$DEV 1 $(vm_gid_index "$DEV" 10.100.0.1) \(RoCE v2, 10\.100\.0\.1 on $NET\.100\)\$"

demo_section rdma-devmap "the netdev of each RDMA port (PCI and NUMA on real NICs), and the port behind an IP or netdev"
demo_run rdma-devmap
demo_check "rdma-devmap: $DEV port 1 on $NET, up" "^$DEV port 1 ==> $NET \(Up\)\$"
demo_run rdma-devmap "$VM_IP"
demo_check "rdma-devmap $VM_IP: $DEV port 1 and the GID index" \
	"^$VM_IP ==> $DEV port 1 netdev $NET gid $(vm_gid_index "$DEV" "$VM_IP")\$"
demo_run rdma-devmap "$NET.100"
demo_check "rdma-devmap $NET.100: $DEV port 1 and the VLAN's GIDs" "^$NET\.100 ==> $DEV port 1 netdev $NET\.100 gid [0-9,]+\$"

demo_section rdma-events "async events, netdev link changes and GID table changes, as they happen"
demo_note "rdma-events watches $DEV while the demo takes $NET down and up and adds and removes an address"
printf '$ rdma-events --state -d %s &\n' "$DEV"
# tee shows each line before it is in the file the steps wait on.
timeout -k 5 "$DEMO_TIMEOUT" rdma-events --state -d "$DEV" > >(tee "$DEMO_OUT/events") 2>&1 &
evpid=$!
# Each step waits for its event, so that the event shows under its command.
ev_step() { # ERE CMD...: run CMD, wait for a line matching ERE
	local re=$1
	shift
	demo_do "$@"
	vm_retry 20 grep -Eq -- "$re" "$DEMO_OUT/events"
}
vm_retry 20 grep -q "$DEV port 1 STATE" "$DEMO_OUT/events"
ev_step "$DEV port 1 PORT_ERR" ip link set "$NET" down
ev_step "$DEV port 1 PORT_ACTIVE" ip link set "$NET" up
port_back
ev_step "GID_ADD .*10\.10\.0\.9" ip addr add 10.10.0.9/24 dev "$NET"
ev_step "GID_DEL .*10\.10\.0\.9" ip addr del 10.10.0.9/24 dev "$NET"
vm_sleep 0.5
kill -INT "$evpid"
wait "$evpid"
rc=$?
evpid=""
vm_check_eq "rdma-events: SIGINT ends it with status 0" 0 "$rc" "$DEMO_OUT/events"
demo_check "rdma-events: LINK_DOWN for $DEV, with the reason" "$DEV port 1 +LINK_DOWN +$NET down \(administratively down\)" events
demo_check "rdma-events: PORT_ERR for $DEV" "$DEV port 1 +PORT_ERR " events
demo_check "rdma-events: LINK_UP for $DEV" "$DEV port 1 +LINK_UP +$NET up" events
demo_check "rdma-events: PORT_ACTIVE for $DEV" "$DEV port 1 +PORT_ACTIVE " events
demo_check "rdma-events: GID_ADD of 10.10.0.9 on $DEV" "$DEV port 1 +GID_ADD +index [0-9]+ ::ffff:10\.10\.0\.9 v2 $NET$" events
demo_check "rdma-events: GID_DEL of 10.10.0.9 on $DEV" "$DEV port 1 +GID_DEL +index [0-9]+ ::ffff:10\.10\.0\.9 v2 $NET$" events

demo_section rdma-selftest "a staged RDMA test (connect, verified ping-pong, latency, bandwidth), PASS/FAIL per stage"
demo_note "loopback on this VM's $DEV"
demo_run rdma-selftest -n 200 --pings 20
demo_check "rdma-selftest loopback: PASS" "^$DEV port 1: PASS(, with a warning at counters)?\$"
demo_note "against the server on the other VM, through rdma_cm"
vm_wait demo-srv-ready 60 || vm_fail "demo: the server on $PEER_IP never got ready"
demo_run rdma-selftest "$PEER_IP" -n 50 --pings 10
demo_check "rdma-selftest $PEER_IP: PASS" "^rdma-selftest: PASS(, with a warning at counters)?\$"
demo_note "every transfer type on one connection (RDMA WRITE with and without immediate, READ, atomics), each verified"
demo_run rdma-selftest "$PEER_IP" --op all --quick --pings 10
demo_check "rdma-selftest --op all --quick: PASS" "^rdma-selftest: PASS(, with a warning at counters)?\$"
demo_note "UD (--qp ud): datagrams through an address handle to the peer's GID, at most one packet each"
demo_run rdma-selftest "$PEER_IP" --qp ud -n 200 --pings 10
demo_check "rdma-selftest --qp ud: PASS" "^rdma-selftest: PASS(, with a warning at [a-z]+)?\$"
demo_note "multicast, like mckey: the other VM receives 239.1.1.1 (rdma-selftest --mcast 239.1.1.1 --server --once); this one sends"
vm_wait demo-mc-ready 60 || vm_fail "demo: the multicast receiver on $PEER_IP never joined"
demo_run rdma-selftest --mcast 239.1.1.1 --bind "$VM_IP"
demo_check "rdma-selftest --mcast sender: PASS" "^rdma-selftest: PASS\$"

demo_section rdma-top "counters as rates, here in batch mode while a transfer runs"
demo_note "a 6 s bandwidth run to $PEER_IP in the background (rdma-selftest -D 6)"
printf '$ rdma-selftest %s --bandwidth-only -D 6 &\n' "$PEER_IP"
vm_bg bw timeout 60 rdma-selftest "$PEER_IP" --bandwidth-only -D 6 --pings 10
vm_retry 30 grep -q "PASS  pingpong" /tmp/vm-bg/bw.out
demo_run rdma-top -b -n 4 -i 1 -d "$DEV"
demo_check "rdma-top: nonzero TX and RX packets/s on $DEV during the transfer" \
	"^$DEV +1 +$NET +ACTIVE( +[^ ]+){3} +[1-9][0-9.]*[kM]? +[1-9][0-9.]*[kM]? "
vm_bg_wait bw >"$DEMO_OUT/bw"
rc=$?
vm_check_eq "the background transfer passed" "0" "$rc" "$DEMO_OUT/bw"
demo_note "the transfer's result:"
grep -E "bandwidth|^rdma-selftest:" "$DEMO_OUT/bw"
demo_note "one scrape under node_exporter's infiniband collector names, for its textfile collector"
demo_run sh -c "rdma-top --format node-exporter -d $DEV | grep -E '^(node_infiniband_(state_id|info)|rdma_hw_stat_total.*sent_pkts)'"
demo_check "rdma-top node-exporter: the port's state under node_exporter's name" "^node_infiniband_state_id\\{device=\"$DEV\",port=\"1\"\\} 4\$"

demo_section rdma-doctor "is this node ready for RDMA? every check PASS/WARN/FAIL/SKIP, with the fix"
demo_run rdma-doctor -v --interval 1 --only port,roce -d "$DEV"
demo_check "rdma-doctor: $DEV's port ACTIVE" "^port\.state +$DEV/1 +PASS "
demo_check "rdma-doctor: a usable RoCE v2 GID on $DEV" "^roce\.gid +$DEV/1 +PASS +index [0-9]+: RoCE v2"
demo_note "the fault a cable pull makes: $NET down"
demo_do ip link set "$NET" down
demo_run -e 1 rdma-doctor --nhc --interval 0 --only port,roce -d "$DEV"
demo_check "rdma-doctor --nhc: one ERROR line naming the failed check" "^ERROR: rdma-doctor: [a-z_]+\.[a-z_]+: $DEV/1: "
demo_do ip link set "$NET" up
port_back || vm_fail "demo: $DEV did not come back after $NET up"
demo_run rdma-doctor --nhc --interval 0 --only roce.netdev,roce.gid -d "$DEV"

demo_section rdma-fleet "many hosts' JSON (from srun, pdsh or clush) in one table: the majority and the outliers"
demo_note "this VM's rdma-devinfo -v -j and rdma-gids --best -j, labelled as two hosts the way pdsh labels lines;"
demo_note "node03 is in the host list but sends nothing (make check-fleet runs it on three real VMs)"
for h in node01 node02; do
	printf '$ rdma-devinfo -v -j | rdma-fleet --prefix=%s; rdma-gids --best -j | rdma-fleet --prefix=%s\n' "$h" "$h"
	{ rdma-devinfo -v -j | rdma-fleet --prefix="$h" && rdma-gids --best -j | rdma-fleet --prefix="$h"; } >>"$DEMO_OUT/fleet-in" ||
		vm_fail "demo: labelling $h's JSON with rdma-fleet --prefix"
done
demo_run -e 1 rdma-fleet -w 'node[01-03]' "$DEMO_OUT/fleet-in"
demo_check "rdma-fleet: $DEV's state agreed by both hosts" "^state +$DEV +1 +ACTIVE +2/2 +-\$"
demo_check "rdma-fleet: node03 listed but silent" "^node03 .*expected, but sent nothing\$"

demo_section rdma-fabric "the InfiniBand fabric: every link, error counter and subnet manager, with a verdict"
demo_note "this VM's only RDMA port is soft-RoCE: there is no InfiniBand subnet to sweep, and rdma-fabric says so;"
demo_note "make demo then shows it on a simulated InfiniBand fabric under a real OpenSM (tests/fabric/t-demo.sh)"
demo_run -e 1 rdma-fabric
demo_check "rdma-fabric: names the Ethernet port it cannot sweep from" "no InfiniBand port \\($DEV port 1 is Ethernet: RoCE and iWARP have no subnet to sweep\\)"

demo_section rdma-gpumap "which NIC each GPU uses, and whether GPUDirect RDMA will, by NCCL's rules"
demo_note "this VM has no GPU, and rdma-gpumap says so; then the map of a copied tree, not of this VM:"
demo_note "tests/fixtures/gpu-dgx-faults stands for a DGX H100-like node with a NIC port down, ACS on and no peermem"
demo_run -e 1 rdma-gpumap --no-env
demo_check "rdma-gpumap: no GPU on this VM" "no GPU found"
demo_run rdma-gpumap --no-env --sysroot "$RD_ROOT/tests/fixtures/gpu-dgx-faults" --gpu 3,5
demo_check "rdma-gpumap (copied tree): GPU3 on a far NIC, PHB, no GDR" "^GPU3 +0000:61:00\.0 +0 +mlx5_0 +1 +ACTIVE +PHB +NODE .* no "
demo_check "rdma-gpumap (copied tree): ACS on GPU5's switch named" "ACS on 0000:b9:0[23]\.0 redirects peer-to-peer"

#!/bin/bash
# VM scenario: rdma-devinfo against the real rxe0 device, field by field
# against ibv_devinfo -v and sysfs.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

T=$RD_ROOT/build/rdma-devinfo
DEV=${VM_RDMA_DEV:-rxe0}
SYS=/sys/class/infiniband/$DEV
J=$(mktemp) IBV=$(mktemp) TXT=$(mktemp)

"$T" -j -v -d "$DEV" > "$J" 2>/tmp/devinfo.err
rc=$?
vm_check_eq "devinfo -j -v exits 0" 0 "$rc" "$J" "/tmp/devinfo.err"
vm_check "devinfo -j -v is JSON" vm_json "$J"
vm_check_eq "devinfo -j -v: no warnings" "" "$(cat /tmp/devinfo.err)"
ibv_devinfo -v -d "$DEV" > "$IBV"
"$T" -v -d "$DEV" > "$TXT"

# ibv_devinfo's "key:<tabs>value" lines (first match; device section first).
ibv() { sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" "$IBV" | head -1; }
# Our text -v lines "key:   value" (first match).
txt() { sed -n "s/^ *$1: *//p" "$TXT" | head -1; }
jqr() { jq -r "$1" "$J"; }

# JSON writes a GUID as 0x and 16 hex digits (the fabric's form); sysfs and
# ibv_devinfo write 0c42:a103:0065:8b1e: the same digits.
hexguid() { local g=${1//:/}; echo "0x$g"; }
vm_check_eq "node_guid = ibv_devinfo" "$(hexguid "$(ibv node_guid)")" "$(jqr '.[0].node_guid')"
vm_check_eq "node_guid = sysfs" "$(hexguid "$(cat $SYS/node_guid)")" "$(jqr '.[0].node_guid')"
vm_check_eq "sys_image_guid = ibv_devinfo" "$(hexguid "$(ibv sys_image_guid)")" "$(jqr '.[0].sys_image_guid')"
vm_check_eq "fw_ver = sysfs" "$(cat $SYS/fw_ver)" "$(jqr '.[0].fw_ver')"
vm_check_eq "verbs fw_ver = ibv_devinfo" "$(ibv fw_ver)" "$(jqr '.[0].verbs.fw_ver // ""')"
vm_check_eq "node_type = sysfs" "$(sed 's/^[0-9]*: //' $SYS/node_type)" "$(jqr '.[0].node_type')"
vm_check_eq "parent = sysfs" "$(cat $SYS/parent)" "$(jqr '.[0].parent')"
vm_check_eq "transport is RoCE" "RoCE" "$(jqr '.[0].transport')"
uv=$(basename "$(dirname "$(grep -lx "$DEV" /sys/class/infiniband_verbs/uverbs*/ibdev)")")
vm_check_eq "uverbs device" "/dev/infiniband/$uv" "$(jqr '.[0].uverbs')"

for f in vendor_part_id phys_port_cnt max_qp max_qp_wr max_sge max_sge_rd max_cq max_cqe \
	max_mr max_pd max_qp_rd_atom max_qp_init_rd_atom max_res_rd_atom max_mw max_srq \
	max_srq_wr max_srq_sge max_pkeys local_ca_ack_delay max_ah max_mcast_grp \
	max_mcast_qp_attach max_total_mcast_qp_attach; do
	vm_check_eq "verbs $f = ibv_devinfo" "$(ibv "$f")" "$(jqr ".[0].verbs.$f")"
done
for f in vendor_id max_mr_size page_size_cap hw_ver; do
	vm_check_eq "verbs $f (hex) = ibv_devinfo" "$(ibv "$f")" "$(txt "$f")"
done
ibv_atomic=$(ibv atomic_cap)	# "ATOMIC_HCA (1)" / "ATOMIC_NONE (0)"
case $ibv_atomic in
ATOMIC_HCA*) want=hca ;; ATOMIC_GLOB*) want=global ;; *) want=none ;;
esac
vm_check_eq "atomic_cap = ibv_devinfo" "$want" "$(jqr '.[0].verbs.atomic_cap')"

# Port 1
vm_check_eq "port state = sysfs" "$(sed 's/^[0-9]*: //' $SYS/ports/1/state)" "$(jqr '.[0].ports[0].state')"
vm_check_eq "port state = ibv_devinfo" "$(ibv state | sed 's/^PORT_//; s/ (.*//')" "$(jqr '.[0].ports[0].state')"
vm_check_eq "phys_state = sysfs" "$(sed 's/^[0-9]*: //' $SYS/ports/1/phys_state)" "$(jqr '.[0].ports[0].phys_state')"
vm_check_eq "link_layer = ibv_devinfo" "$(ibv link_layer)" "$(jqr '.[0].ports[0].link_layer')"
vm_check_eq "rate = sysfs" "$(cat $SYS/ports/1/rate)" "$(jqr '.[0].ports[0].rate')"
vm_check_eq "max_mtu = ibv_devinfo" "$(ibv max_mtu | sed 's/ (.*//')" "$(jqr '.[0].ports[0].verbs.max_mtu')"
vm_check_eq "active_mtu = ibv_devinfo" "$(ibv active_mtu | sed 's/ (.*//')" "$(jqr '.[0].ports[0].verbs.active_mtu')"
vm_check_eq "gid_tbl_len = ibv_devinfo" "$(ibv gid_tbl_len)" "$(jqr '.[0].ports[0].verbs.gid_tbl_len')"
vm_check_eq "lid = ibv_devinfo" "$(ibv port_lid)" "$(jqr '.[0].ports[0].verbs.lid')"
vm_check_eq "sm_lid = ibv_devinfo" "$(ibv sm_lid)" "$(jqr '.[0].ports[0].verbs.sm_lid')"
vm_check_eq "port_cap_flags = ibv_devinfo" "$(ibv port_cap_flags)" "$(txt port_cap_flags)"
vm_check_eq "max_msg_sz = ibv_devinfo" "$(ibv max_msg_sz)" "$(txt max_msg_sz)"
vm_check_eq "cap_mask = sysfs" "$(cat $SYS/ports/1/cap_mask)" "$(txt cap_mask)"
vm_check_eq "port netdevs" "$VM_NETDEV" "$(jqr '.[0].ports[0].netdevs[0]')"
vm_check_eq "port netdev_mtu = ip link (rtnetlink, live)" \
	"$(ip -o link show dev "$VM_NETDEV" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" "$(jqr '.[0].ports[0].netdev_mtu')"

# Default table and list modes
vm_check_output "table row for $DEV" "^$DEV +CA +RoCE +1 +ACTIVE +- +$(cat $SYS/node_guid) +$VM_NETDEV\$" "$T"
vm_check_output "-l lists $DEV" "^$DEV\$" "$T" -l
vm_check_eq "-l -j" "[\"$DEV\"]" "$("$T" -l -j | jq -c .)"

# Bad input
out=$("$T" -d nosuch 2>&1); rc=$?
vm_check_eq "-d nosuch exits 1" 1 "$rc" @out
vm_check_eq "-d nosuch message" "rdma-devinfo: nosuch: no such device (known: $DEV)" "$out"
out=$("$T" -d "$DEV" -p 7 2>&1); rc=$?
vm_check_eq "-p 7 exits 1" 1 "$rc" @out
vm_check_eq "-p 7 message" "rdma-devinfo: $DEV: no port 7 (ports: 1)" "$out"
"$T" -p 0 >/dev/null 2>&1; vm_check_eq "-p 0 is a usage error" 2 "$?"

# An unprivileged user without access to the uverbs device (udev would make
# it 0666; we make it 0600 for the test): verbs are refused, sysfs facts remain.
perm=$(stat -c %a "/dev/infiniband/$uv")
chmod 600 "/dev/infiniband/$uv"
out=$(vm_as_nobody "$T" -j -v -d "$DEV" 2>&1); rc=$?
vm_as_nobody "$T" -v -d "$DEV" > /tmp/unpriv.txt 2>&1
chmod "$perm" "/dev/infiniband/$uv"
vm_check_eq "unprivileged -v exits 0" 0 "$rc" @out
echo "$out" > /tmp/unpriv.json
vm_check_output "unprivileged: verbs_error names the device and the cause" \
	"cannot open $uv: Permission denied" jq -r '.[0].verbs_error' /tmp/unpriv.json
vm_check_eq "unprivileged: no verbs facts" "null" "$(jq -c '.[0].verbs' <<<"$out")"
vm_check_eq "unprivileged: sysfs facts remain" "$(hexguid "$(cat $SYS/node_guid)")" "$(jq -r '.[0].node_guid' <<<"$out")"
vm_check_output "unprivileged text says why" "^  verbs: +cannot open $uv: Permission denied" cat /tmp/unpriv.txt

# No device at all: a clear message, exit 1; then put rxe0 back.
rdma link delete "$DEV"
out=$("$T" 2>&1); rc=$?
vm_check_eq "no devices exits 1" 1 "$rc" @out
vm_check_output "no devices message" "no RDMA devices found" echo "$out"
rdma link add "$DEV" type rxe netdev "$VM_NETDEV"
vm_retry 10 test -e "$SYS/ports/1/state"
vm_check_output "rxe0 back" "^$DEV" "$T" -l
vm_schema rdma-devinfo "$J"
vm_schema_check
rm -f "$J" "$IBV" "$TXT"
if [ "${VM_SHOW:-0}" = 1 ]; then "$T"; "$T" -v; fi

#!/bin/bash
# SPDX-License-Identifier: MIT
# gen-top-sysroot.sh DIR [NPORT=32] [NCTR=60]: a sysroot for rdma-top's benchmark.
#
# What it stands for: a host with NPORT/2 ConnectX-6 Dx dual-port 100GbE cards
# in RoCE mode: NPORT mlx5 devices (one PCI function each, one port each),
# mlx5_N -> netdev ensXfYnp0 at 100000 Mb/s.  Per port, laid out as the kernel
# does (drivers/infiniband/core/sysfs.c, see tests/fixtures/mlx5-roce-dual):
#   counters/     the 21 PMA attributes of the extended set (pma_attrs_ext)
#   hw_counters/  the 29 default mlx5 counters (drivers/infiniband/hw/mlx5/
#                 counters.c: basic, out_of_seq, retrans, extended_err,
#                 roce_accl, cong and ext_ppcnt groups), its 3 optional cc_*
#                 counters, `lifespan`, and -- to reach NCTR counters a port,
#                 as the issue asks (60) -- synthetic pad_NN counters, named
#                 so that nothing mistakes them for a real one.
# Values are arbitrary but plausible; the files are plain files, so a pread
# costs what a page-cache read costs, not a sysfs show() (see bench/README.md).
set -eu
dir=${1:?usage: gen-top-sysroot.sh DIR [NPORT] [NCTR]}
nport=${2:-32} nctr=${3:-60}

pma=(symbol_error link_error_recovery link_downed port_rcv_errors
	port_rcv_remote_physical_errors port_rcv_switch_relay_errors port_xmit_discards
	port_xmit_constraint_errors port_rcv_constraint_errors local_link_integrity_errors
	excessive_buffer_overrun_errors VL15_dropped port_xmit_data port_rcv_data
	port_xmit_packets port_xmit_wait port_rcv_packets unicast_rcv_packets
	unicast_xmit_packets multicast_rcv_packets multicast_xmit_packets)
hw=(rx_write_requests rx_read_requests rx_atomic_requests rx_dct_connect out_of_buffer
	out_of_sequence duplicate_request rnr_nak_retry_err packet_seq_err implied_nak_seq_err
	local_ack_timeout_err resp_local_length_error resp_cqe_error req_cqe_error
	req_remote_invalid_request req_remote_access_errors resp_remote_access_errors
	resp_cqe_flush_error req_cqe_flush_error roce_adp_retrans roce_adp_retrans_to
	roce_slow_restart roce_slow_restart_cnps roce_slow_restart_trans rp_cnp_ignored
	rp_cnp_handled np_ecn_marked_roce_packets np_cnp_sent rx_icrc_encapsulated
	cc_rx_ce_pkts cc_rx_cnp_pkts cc_tx_cnp_pkts)
for ((i = ${#pma[@]} + ${#hw[@]}; i < nctr; i++)); do
	hw+=("pad_$(printf '%02d' $((i - ${#pma[@]} - 32)))")
done

mkdir -p "$dir/sys/class/infiniband" "$dir/sys/class/net"
for ((n = 0; n < nport; n++)); do
	bus=$(printf '%02x' $((0x10 + n / 2))) fn=$((n % 2))
	pci=0000:$bus:00.$fn
	d=sys/devices/pci0000:00/0000:00:$(printf '%02x' $((n / 2 + 1))).0/$pci
	ib=$dir/$d/infiniband/mlx5_$n
	nd=ens$((n / 2 + 1))f${fn}np0
	mkdir -p "$ib/ports/1/counters" "$ib/ports/1/hw_counters" "$dir/$d/net/$nd"
	ln -sfn "../../${d#sys/}/infiniband/mlx5_$n" "$dir/sys/class/infiniband/mlx5_$n"
	ln -sfn "../../${d#sys/}/net/$nd" "$dir/sys/class/net/$nd"
	ln -sfn "../../../../bus/pci/drivers/mlx5_core" "$dir/$d/driver"
	printf '1: CA\n' > "$ib/node_type"
	printf '0c42:a103:00%02x:%04x\n' "$n" $((0x8b1e + n)) > "$ib/node_guid"
	printf '0c42:a103:00%02x:%04x\n' "$n" $((0x8b1e + n)) > "$ib/sys_image_guid"
	printf '22.36.1010\n' > "$ib/fw_ver"
	printf 'MT4125\n' > "$ib/hca_type"
	printf 'MT_0000000359\n' > "$ib/board_id"
	printf 'bench-h01 mlx5_%d\n' "$n" > "$ib/node_desc"
	p=$ib/ports/1
	printf '4: ACTIVE\n' > "$p/state"
	printf '5: LinkUp\n' > "$p/phys_state"
	printf '100 Gb/sec (4X EDR)\n' > "$p/rate"
	printf 'Ethernet\n' > "$p/link_layer"
	printf '0x0\n' > "$p/lid"
	printf '0x0\n' > "$p/sm_lid"
	printf '0\n' > "$p/sm_sl"
	printf '0\n' > "$p/lid_mask_count"
	printf '0x00010000\n' > "$p/cap_mask"
	mkdir -p "$p/gid_attrs/ndevs" "$p/gid_attrs/types" "$p/gids"
	printf 'fe80:0000:0000:0000:0e42:a1ff:fe%02x:%04x\n' "$n" $((0x8b1e + n)) > "$p/gids/0"
	printf '%s\n' "$nd" > "$p/gid_attrs/ndevs/0"
	printf 'RoCE v2\n' > "$p/gid_attrs/types/0"
	for c in "${pma[@]}"; do printf '%d\n' $(((n + 1) * 1000003 + ${#c} * 7919)) > "$p/counters/$c"; done
	for c in "${hw[@]}"; do printf '%d\n' $(((n + 1) * 104729 + ${#c} * 31)) > "$p/hw_counters/$c"; done
	printf '10\n' > "$p/hw_counters/lifespan"
	n_=$dir/$d/net/$nd
	printf 'up\n' > "$n_/operstate"
	printf '1\n' > "$n_/carrier"
	printf '100000\n' > "$n_/speed"
	printf '9000\n' > "$n_/mtu"
	printf '%d\n' $((n + 2)) > "$n_/ifindex"
	printf '1\n' > "$n_/type"
	printf '0\n' > "$n_/dev_port"
done
mkdir -p "$dir/sys/bus/pci/drivers/mlx5_core"
echo "$dir: $nport ports x $((${#pma[@]} + ${#hw[@]})) counters"

#!/bin/bash
# VM scenario: the Debian package, installed.  `dpkg -i` of build/rdma-diag_*.deb
# into the VM's root -- the host's root under a tmpfs overlay (tests/vm/init), so
# dpkg works on its real database and file tree and nothing reaches the host --
# then the package's autopkgtest (debian/tests/rxe-tools: its own rxe device on
# a private veth pair, the installed tools against it), then `dpkg -r`.
# Needs `make deb` first (make check-vm does it).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

deb=$(ls "$RD_ROOT"/build/rdma-diag_*_"$(dpkg --print-architecture)".deb 2> /dev/null | tail -1)
if [ -z "$deb" ]; then
	vm_fail "a built package in build/" "no build/rdma-diag_*.deb: run make deb"
	exit 0
fi
version=$(dpkg-deb -f "$deb" Version)
vm_log "installing $deb"
cleanup() {
	dpkg -r rdma-diag > /dev/null 2>&1
}
trap cleanup EXIT

# man-db's trigger would rebuild the whole man index (minutes under TCG over
# 9p): switched off the way debconf's man-db/auto-update=false does.
rm -f /var/lib/man-db/auto-update
vm_check "dpkg -i the package" timeout 120 dpkg -i "$deb"
vm_check_eq "dpkg: installed, version $version" "install ok installed $version" \
	"$(dpkg-query -W -f '${Status} ${Version}' rdma-diag 2>&1)"
listed=$(dpkg -L rdma-diag)
missing=
for t in rdma-devinfo rdma-gids rdma-devmap rdma-events rdma-selftest rdma-top; do
	for f in /usr/bin/$t /usr/share/man/man1/$t.1.gz /usr/share/bash-completion/completions/$t \
		/usr/share/zsh/vendor-completions/_$t; do
		grep -qx "$f" <<< "$listed" && [ -e "$f" ] || missing="$missing $f"
	done
done
vm_check_eq "every tool, man page and completion installed" "" "$missing"
vm_check_output "installed rdma-top is the package's version" "^rdma-top \\(rdma-diag\\) ${version//./\\.}\$" \
	/usr/bin/rdma-top --version
vm_check "zsh finds the completion in its vendor path" \
	zsh -fc 'for d in $fpath; do [[ -e $d/_rdma-top ]] && exit 0; done; exit 1'

# The autopkgtest as autopkgtest runs it: as root, cwd = the source tree, with
# the installed tools on PATH (and not the build tree's).
out=$(cd "$RD_ROOT" && PATH=/usr/sbin:/usr/bin:/sbin:/bin timeout 600 debian/tests/rxe-tools 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
vm_check_eq "autopkgtest rxe-tools exits 0" 0 "$rc" @out
vm_check_output "autopkgtest ran every check" "^rxe-tools: [0-9]+ passed, 0 failed\$" echo "$out"
vm_check_eq "autopkgtest removed its rxe device and veth pair" "" \
	"$(ls /sys/class/infiniband | grep -v -x "${VM_RDMA_DEV:-rxe0}"; ip -o link show rdadt0 2> /dev/null)"

# And with RDMA_DIAG_NETDEV: the rxe device already on eth0 is used, and kept.
out=$(cd "$RD_ROOT" && RDMA_DIAG_NETDEV=$VM_NETDEV PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	timeout 600 debian/tests/rxe-tools 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
vm_check_eq "autopkgtest with RDMA_DIAG_NETDEV=$VM_NETDEV exits 0" 0 "$rc" @out
vm_check_output "it used ${VM_RDMA_DEV:-rxe0}" "^rxe-tools: ${VM_RDMA_DEV:-rxe0} on $VM_NETDEV " echo "$out"
vm_check "${VM_RDMA_DEV:-rxe0} is still there" test -e "/sys/class/infiniband/${VM_RDMA_DEV:-rxe0}"

vm_check "dpkg -r removes it" timeout 120 dpkg -r rdma-diag
left=
for f in $listed; do
	[ -f "$f" ] && left="$left $f"
done
vm_check_eq "no file of the package left" "" "$left"
trap - EXIT

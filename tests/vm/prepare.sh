#!/bin/bash
# prepare.sh OUTDIR
#
# Idempotently prepares everything the VM test tier needs in OUTDIR:
#   OUTDIR/kernel/<pkg>/      the Debian kernel image package, unpacked (dpkg -x)
#   OUTDIR/vmlinuz            copy of that package's kernel
#   OUTDIR/initrd.img         busybox + kernel modules + tests/vm/init
#   OUTDIR/kernel.env         KVER=..., KPKG=... (what was built)
#
# The kernel package is never installed; its name is discovered from the
# dependencies of the linux-image-amd64 meta package (override with
# RD_VM_KERNEL_PKG=linux-image-X). Extra modules for the initramfs can be
# added with RD_VM_EXTRA_MODULES="mod1 mod2".
set -eu

die() { echo "prepare.sh: error: $*" >&2; exit 1; }
note() { echo "prepare.sh: $*" >&2; }

[ $# -eq 1 ] || die "usage: $0 OUTDIR"
mkdir -p "$1" || die "cannot create $1"
OUTDIR=$(cd "$1" && pwd -P)
HERE=$(cd "$(dirname "$0")" && pwd -P)

# Modules loaded at boot (dependencies are resolved with modprobe and loaded
# first). crc32_generic is not a declared dependency of rdma_rxe, but rxe
# fails with "failed to init crc32 algorithm err:-2" without it, so it goes
# first. "name opt=val" entries give module options.
BOOT_MODULES=(
    "crc32_generic"
    "virtio_pci" "virtio_net" "9pnet_virtio" "9p" "overlay"
    "rdma_rxe" "ib_uverbs" "ib_cm" "iw_cm" "rdma_cm" "rdma_ucm" "ib_umad"
    "8021q" "veth" "bonding max_bonds=0" "dummy numdummies=0"
    "sch_netem" "macvlan"
)
# shellcheck disable=SC2206 # word splitting intended
EXTRA=(${RD_VM_EXTRA_MODULES:-})
BOOT_MODULES+=("${EXTRA[@]}")

# ---------------------------------------------------------------- host tools
need() { # command debian-package
    command -v "$1" >/dev/null 2>&1 ||
        die "'$1' not found: apt-get install $2"
}
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need depmod kmod
need modprobe kmod
need dpkg-deb dpkg
need apt-get apt
BUSYBOX=${RD_VM_BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || die "$BUSYBOX not found: apt-get install busybox-static"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
    die "$BUSYBOX is dynamically linked: apt-get install busybox-static"
fi

# ------------------------------------------------------- kernel package name
find_pkg() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1
}
cached_pkg() { # newest already unpacked package, if any
    find "$OUTDIR/kernel" -mindepth 2 -maxdepth 2 -name .unpacked 2>/dev/null |
        sed 's|/\.unpacked$||; s|.*/||' | sort -V | tail -n1
}

KPKG=${RD_VM_KERNEL_PKG:-}
if [ -z "$KPKG" ]; then
    KPKG=$(find_pkg)
    if [ -z "$KPKG" ] && [ -z "$(cached_pkg)" ] && [ "$(id -u)" = 0 ]; then
        note "apt-cache knows no linux-image-amd64; running apt-get update"
        apt-get update -qq >/dev/null 2>&1 || true
        KPKG=$(find_pkg)
    fi
    if [ -z "$KPKG" ]; then
        KPKG=$(cached_pkg)
        [ -n "$KPKG" ] ||
            die "cannot resolve linux-image-amd64 (run apt-get update?)"
        note "apt-cache gave no kernel package; using cached $KPKG"
    fi
fi

# ----------------------------------------------------- download and unpack
KDIR=$OUTDIR/kernel/$KPKG
if [ ! -e "$KDIR/.unpacked" ]; then
    mkdir -p "$OUTDIR/kernel"
    dl=$(mktemp -d "$OUTDIR/kernel/.dl.XXXXXX")
    download() {
        note "downloading $KPKG"
        (cd "$dl" && apt-get download -q -o APT::Sandbox::User=root \
            "$KPKG" >/dev/null 2>"$dl/err")
    }
    got=0
    download && got=1
    if [ $got = 0 ] && [ -z "${RD_VM_KERNEL_PKG:-}" ] && [ "$(id -u)" = 0 ]; then
        # Stale package lists point at versions the mirror no longer has.
        note "download failed; running apt-get update and retrying"
        apt-get update -qq >/dev/null 2>&1 || true
        new=$(find_pkg)
        if [ -n "$new" ]; then
            KPKG=$new
            KDIR=$OUTDIR/kernel/$KPKG
            if [ -e "$KDIR/.unpacked" ]; then
                got=2
            else
                download && got=1
            fi
        fi
    fi
    if [ $got = 0 ]; then
        cat "$dl/err" >&2
        old=$(cached_pkg)
        rm -rf "$dl"
        [ -n "$old" ] || die "apt-get download $KPKG failed"
        note "download failed; falling back to cached $old"
        KPKG=$old
        KDIR=$OUTDIR/kernel/$KPKG
    elif [ $got = 1 ]; then
        deb=$(find "$dl" -name '*.deb' | head -n1)
        [ -n "$deb" ] || die "apt-get download $KPKG produced no .deb"
        note "unpacking $(basename "$deb")"
        rm -rf "$KDIR"
        dpkg-deb -x "$deb" "$dl/root" || die "dpkg -x $deb failed"
        mv "$dl/root" "$KDIR"
        touch "$KDIR/.unpacked"
    fi
    rm -rf "$dl"
fi

KVER=$(find "$KDIR/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | head -n1)
[ -n "$KVER" ] || die "no lib/modules/<version> in $KDIR"
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
[ -f "$VMLINUZ" ] || die "no kernel image $VMLINUZ"
if [ ! -e "$KDIR/lib/modules/$KVER/modules.dep" ]; then
    depmod -b "$KDIR" "$KVER" || die "depmod -b $KDIR $KVER failed"
fi

# --------------------------------------------------------------- initramfs
# Rebuilt only when one of its inputs changed.
stamp_of() {
    {
        echo "$KPKG $KVER"
        printf '%s\n' "${BOOT_MODULES[@]}"
        sha256sum "$HERE/init" "$HERE/prepare.sh" "$BUSYBOX"
    } | sha256sum | cut -d' ' -f1
}
STAMP=$(stamp_of)
if [ -f "$OUTDIR/initrd.img" ] && [ -f "$OUTDIR/vmlinuz" ] &&
   [ "$(cat "$OUTDIR/initrd.stamp" 2>/dev/null)" = "$STAMP" ]; then
    note "up to date ($KPKG, $KVER)"
    exit 0
fi

note "building initramfs for $KVER"
STAGE=$(mktemp -d "$OUTDIR/.initrd.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,newroot,lower,upper,scratch,tmp,etc} \
         "$STAGE/lib/modules/$KVER/kernel"
cp "$BUSYBOX" "$STAGE/bin/busybox"
# init re-opens /dev/console after mounting devtmpfs; this node only serves
# the kernel's early open of the console (needs root; harmless if missing).
mknod -m 600 "$STAGE/dev/console" c 5 1 2>/dev/null || true
cp "$HERE/init" "$STAGE/init"
chmod 755 "$STAGE/init" "$STAGE/bin/busybox"
cp "$KDIR/lib/modules/$KVER/modules.builtin" \
   "$KDIR/lib/modules/$KVER/modules.order" "$STAGE/lib/modules/$KVER/" 2>/dev/null || true
[ -f "$KDIR/lib/modules/$KVER/modules.builtin.modinfo" ] &&
    cp "$KDIR/lib/modules/$KVER/modules.builtin.modinfo" "$STAGE/lib/modules/$KVER/"

# Resolve load order; copy (and decompress) each module once.
declare -A seen=()
: >"$STAGE/modules.list"
src_root=$KDIR/lib/modules/$KVER/
for entry in "${BOOT_MODULES[@]}"; do
    name=${entry%% *}
    opts=""
    [ "$name" != "$entry" ] && opts=${entry#* }
    deps=$(modprobe -C /dev/null -d "$KDIR" -S "$KVER" --show-depends "$name" 2>&1) ||
        die "module $name: $deps"
    while read -r kind path _; do
        [ "$kind" = insmod ] || continue
        rel=${path#"$src_root"}
        case $rel in
            *.ko.xz)  dst=${rel%.xz}  ;;
            *.ko.zst) dst=${rel%.zst} ;;
            *.ko.gz)  dst=${rel%.gz}  ;;
            *)        dst=$rel ;;
        esac
        [ -z "${seen[$dst]:-}" ] || continue
        seen[$dst]=1
        mkdir -p "$STAGE/lib/modules/$KVER/$(dirname "$dst")"
        case $rel in
            *.ko.xz)  xz -dc "$path" ;;
            *.ko.zst) zstd -qdc "$path" ;;
            *.ko.gz)  gzip -dc "$path" ;;
            *)        cat "$path" ;;
        esac >"$STAGE/lib/modules/$KVER/$dst" || die "cannot unpack $path"
        mod=$(basename "$dst" .ko)
        if [ "$mod" = "${name//-/_}" ] || [ "$mod" = "$name" ]; then
            echo "$dst $opts" >>"$STAGE/modules.list"
        else
            echo "$dst" >>"$STAGE/modules.list"
        fi
    done <<<"$deps"
done
# modules.dep for the subset: used by modprobe inside the VM (both busybox's,
# for kernel auto-loading, and the host's kmod in the chroot).
depmod -b "$STAGE" "$KVER" || die "depmod on initramfs tree failed"
echo "$KVER" >"$STAGE/kver"

(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) \
    >"$OUTDIR/initrd.img.tmp" || die "cpio failed"
mv "$OUTDIR/initrd.img.tmp" "$OUTDIR/initrd.img"
cp "$VMLINUZ" "$OUTDIR/vmlinuz.tmp" && mv "$OUTDIR/vmlinuz.tmp" "$OUTDIR/vmlinuz"
# Also the uncompressed ELF kernel: qemu boots it directly (PVH entry), which
# skips the in-guest XZ decompression, ~2-3 s under TCG. run.sh falls back to
# vmlinuz when it is absent.
rm -f "$OUTDIR/vmlinux"
extract_vmlinux() { # magic-regex decompressor...
    local off
    off=$(LC_ALL=C grep -obUaP "$1" "$VMLINUZ" | head -n1 | cut -d: -f1)
    [ -n "$off" ] || return 1
    shift
    tail -c +$((off + 1)) "$VMLINUZ" | "$@" >"$OUTDIR/vmlinux.tmp" 2>/dev/null
    [ "$(head -c 4 "$OUTDIR/vmlinux.tmp")" = $'\x7fELF' ]
}
if extract_vmlinux '\xfd7zXZ\x00' xz -dc --single-stream ||
   extract_vmlinux '\x28\xb5\x2f\xfd' zstd -qdc ||
   extract_vmlinux '\x1f\x8b\x08\x00' gzip -dc; then
    mv "$OUTDIR/vmlinux.tmp" "$OUTDIR/vmlinux"
else
    rm -f "$OUTDIR/vmlinux.tmp"
    note "could not extract vmlinux (will boot the compressed vmlinuz)"
fi
printf 'KPKG=%s\nKVER=%s\n' "$KPKG" "$KVER" >"$OUTDIR/kernel.env"
echo "$STAMP" >"$OUTDIR/initrd.stamp"
note "ready: $OUTDIR/vmlinuz, $OUTDIR/initrd.img ($(wc -l <"$STAGE/modules.list") modules, $(du -k "$OUTDIR/initrd.img" | cut -f1) KiB)"

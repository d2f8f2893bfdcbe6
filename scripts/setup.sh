#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make setup: install the Debian packages the build needs and fetch the sources
# and images it works from, into $TERN_CACHE (default ~/.cache/tern), keyed by
# version.  Idempotent: a second run installs and downloads nothing.
#
#   bookworm (+ security)   compilers, libraries, linux-source-6.12,
#                           busybox-static, firmware for QEMU, dkms
#   downloaded, not installed: the 6.12 kernel image for the VM and its headers
#                           and kbuild for building the module, unpacked into
#                           the cache (installing linux-headers-6.12-amd64
#                           would install that kernel on the host and make it
#                           the default boot kernel)
#   bookworm-backports      meson >= 1.5 and python3-pycotap (QEMU 10 needs them)
#   trixie, deb-src only    the QEMU 10.0.x source package; binary packages are
#                           never taken from trixie
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(build-essential bc flex bison libelf-dev libssl-dev kmod cpio xz-utils gzip
      busybox-static sparse libdrm-dev pkg-config dpkg-dev python3 python3-venv
      python3-setuptools libglib2.0-dev libpixman-1-dev zlib1g-dev ninja-build
      libfdt-dev qemu-system-data seabios ipxe-qemu valgrind perl file
      linux-source-6.12 libtracefs-dev libtraceevent-dev help2man dkms dwarves
      man-db)
BACKPORT_PKGS=(meson python3-pycotap)
# setup.sh --print-packages: the lists above, for the install test
if [ "${1:-}" = --print-packages ]; then
	printf '%s\n' "${PKGS[@]}" "${BACKPORT_PKGS[@]}"
	exit 0
fi
MIRROR=${TERN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
BACKPORTS_LIST=/etc/apt/sources.list.d/tern-bookworm-backports.sources

changed=0
missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			echo "$p"
	done
}

apt_updated=0
apt_update() {
	[ $apt_updated = 1 ] && return 0
	retry 4 as_root apt-get -q update
	apt_updated=1
}

# --- 1. Debian packages -------------------------------------------------------
if [ ! -f "$BACKPORTS_LIST" ]; then
	log "adding bookworm-backports (pinned low by Debian: used only when asked)"
	as_root tee "$BACKPORTS_LIST" >/dev/null <<EOT
Types: deb deb-src
URIs: $MIRROR
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	changed=1
fi

mapfile -t need < <(missing_pkgs "${PKGS[@]}")
if [ ${#need[@]} -gt 0 ]; then
	log "installing: ${need[*]}"
	apt_update
	retry 3 as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get -q install -y --no-install-recommends "${need[@]}"
	changed=1
fi

# meson from bookworm is 1.0; QEMU 10 needs >= 1.5.
meson_ok() {
	command -v meson >/dev/null &&
		dpkg --compare-versions "$(meson --version)" ge 1.5
}
mapfile -t need < <(missing_pkgs "${BACKPORT_PKGS[@]}")
if [ ${#need[@]} -gt 0 ] || ! meson_ok; then
	log "installing from bookworm-backports: ${BACKPORT_PKGS[*]}"
	apt_update
	retry 3 as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get -q install -y --no-install-recommends -t bookworm-backports \
		"${BACKPORT_PKGS[@]}"
	changed=1
fi

# The kernel release: what linux-headers-6.12-amd64 points to now, fixed in
# the cache at the first run (remove $TERN_CACHE/kernel/release to move on).
mkdir -p "$TERN_CACHE/kernel"
if [ ! -s "$TERN_CACHE/kernel/release" ]; then
	apt_update
	rel=$(apt-cache depends linux-headers-6.12-amd64 |
		sed -n 's/^ *Depends: linux-headers-\(6\.12\.[^ ]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$rel" ] || die "cannot resolve linux-headers-6.12-amd64 to a kernel release"
	echo "$rel" >"$TERN_CACHE/kernel/release"
fi
KREL=$(kernel_release)
[ -n "$KREL" ] || die "no kernel release"

# --- 2. The Debian kernel image the VM boots: exactly the headers' version ----
KDIR_IMG=$TERN_CACHE/kernel/$KREL
if [ ! -f "$KDIR_IMG/.done" ]; then
	log "fetching linux-image-$KREL-unsigned for the VM"
	rm -rf "$KDIR_IMG" && mkdir -p "$KDIR_IMG/deb"
	apt_update
	(cd "$KDIR_IMG/deb" && retry 4 apt-get -q download "linux-image-$KREL-unsigned")
	dpkg -x "$KDIR_IMG"/deb/*.deb "$KDIR_IMG/root"
	rm -rf "$KDIR_IMG/deb"
	touch "$KDIR_IMG/.done"
	changed=1
fi

# --- 2b. Its headers and kbuild, for building the module, unpacked ----------
# (apt-get download: nothing is installed; the headers' Makefile includes the
# -common one by absolute path: point it into the cache)
KHDR=$TERN_CACHE/kernel/$KREL/headers
if [ ! -f "$KHDR/.done" ]; then
	log "fetching the headers and kbuild of $KREL into the cache"
	rm -rf "$KHDR" && mkdir -p "$KHDR/deb"
	apt_update
	(cd "$KHDR/deb" && retry 4 apt-get -q download "linux-headers-$KREL" \
		"linux-headers-${KREL%-amd64}-common" "linux-kbuild-${KREL%-amd64}")
	for deb in "$KHDR"/deb/*.deb; do
		dpkg -x "$deb" "$KHDR"
	done
	rm -rf "$KHDR/deb"
	touch "$KHDR/.done"
	changed=1
fi
point_headers_at_cache "$KREL" || die "cannot point $(kernel_headers "$KREL")/Makefile at the cache"

# --- 3. linux-source-6.12 unpacked (KUnit, checkpatch.pl) ---------------------
SRC_VER=$(dpkg-query -W -f='${Version}' linux-source-6.12)
LSRC=$TERN_CACHE/linux-source/$SRC_VER
if [ ! -f "$LSRC/.done" ]; then
	log "unpacking linux-source-6.12 $SRC_VER"
	rm -rf "$LSRC" && mkdir -p "$LSRC"
	tar -C "$LSRC" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	touch "$LSRC/.done"
	changed=1
fi
ln -sfn "$LSRC" "$TERN_CACHE/linux-source/current"

# --- 4. QEMU 10.0.x source from trixie's deb-src, Debian patches applied -------
APTD=$TERN_CACHE/apt
mkdir -p "$APTD/lists/partial" "$APTD/archives/partial"
if [ ! -f "$APTD/sources.list" ]; then
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" \
		>"$APTD/sources.list"
fi
# shellcheck disable=SC2046
qemu_version() {
	apt-cache $(apt_local_opts) showsrc qemu 2>/dev/null |
		awk '/^Version:/ { print $2 }' | sort -V | tail -n 1 || true
}
QVER=$(qemu_version)
if [ -z "$QVER" ] && ! ls "$TERN_CACHE"/qemu-src/*/.done >/dev/null 2>&1; then
	log "fetching trixie's source index (deb-src only)"
	# shellcheck disable=SC2046
	retry 4 apt-get -q $(apt_local_opts) update
	QVER=$(qemu_version)
fi
if [ -z "$QVER" ]; then
	# Offline re-run: keep using what is unpacked.
	QSRC=$(ls -d "$TERN_CACHE"/qemu-src/*/ | sort -V | tail -n 1)
	QSRC=${QSRC%/}
else
	QSRC=$TERN_CACHE/qemu-src/$QVER
fi
case "$QVER" in ""|*:10.0.*|10.0.*) ;; *) log "warning: trixie serves qemu $QVER, not 10.0.x" ;; esac
if [ ! -f "$QSRC/.done" ]; then
	log "fetching and unpacking the qemu $QVER source package"
	rm -rf "$QSRC" && mkdir -p "$QSRC/dl"
	# shellcheck disable=SC2046
	(cd "$QSRC/dl" && retry 4 apt-get -q $(apt_local_opts) source --download-only qemu)
	(cd "$QSRC/dl" && dpkg-source --no-check -x ./*.dsc "$QSRC/src" >/dev/null)
	rm -rf "$QSRC/dl"
	touch "$QSRC/.done"
	changed=1
fi
ln -sfn "$QSRC" "$TERN_CACHE/qemu-src/current"

if [ $changed = 0 ]; then
	log "setup: everything is in place, nothing to do (kernel $KREL, qemu ${QVER:-cached})"
else
	log "setup: done (kernel $KREL, qemu ${QVER:-cached}, cache $TERN_CACHE)"
fi

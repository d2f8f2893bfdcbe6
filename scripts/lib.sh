# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the tern build and test harness.
# Sourced by the scripts in this folder; defines no side effects of its own.

TERN_TOP=${TERN_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
TERN_CACHE=${TERN_CACHE:-${HOME:-/root}/.cache/tern}

log() { printf '[tern] %s\n' "$*" >&2; }
die() { printf '[tern] error: %s\n' "$*" >&2; exit 1; }

# Run a command with root rights: directly as root, else through sudo.
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# retry N CMD...: run CMD up to N times, waiting a little longer each time.
retry() {
	local n=$1 i=1
	shift
	until "$@"; do
		[ "$i" -ge "$n" ] && return 1
		log "attempt $i of $n failed: $*; retrying"
		sleep $((i * 5))
		i=$((i + 1))
	done
}

# The 6.12 kernel the module is built for and the VM boots, e.g.
# 6.12.57+deb12-amd64: the one make setup fetched into the cache, else (a
# cache made before) that of installed linux-headers-6.12 packages.
kernel_release() {
	local d
	if [ -s "$TERN_CACHE/kernel/release" ]; then
		cat "$TERN_CACHE/kernel/release"
		return
	fi
	for d in /usr/src/linux-headers-6.12*-amd64; do
		[ -d "$d" ] && basename "$d" | sed 's/^linux-headers-//'
	done | sort -V | tail -n 1
}

# The headers make setup unpacked into the cache for release $1.
kernel_headers() {
	echo "$TERN_CACHE/kernel/$1/headers/usr/src/linux-headers-$1"
}

# point_headers_at_cache RELEASE: the headers' Makefile is one line that
# includes the -common tree's Makefile by absolute path (/usr/src/... as
# packaged); make it name the -common tree of $TERN_CACHE, also when the
# cache was moved or copied after make setup unpacked it.
point_headers_at_cache() {
	local hdr=$TERN_CACHE/kernel/$1/headers/usr/src
	local mk=$hdr/linux-headers-$1/Makefile
	local common=$hdr/linux-headers-${1%-amd64}-common/Makefile

	[ -f "$mk" ] || return 0
	grep -qxF "include $common" "$mk" && return 0
	sed -i "s|^include .*/linux-headers-${1%-amd64}-common/Makefile\$|include $common|" "$mk"
	grep -qxF "include $common" "$mk"
}

# Apt options for the project-local source list that holds trixie's deb-src.
# Binary packages are never taken from it: it has no "deb" entry.
apt_local_opts() {
	local d=$TERN_CACHE/apt
	echo "-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null" \
	     "-o Dir::State::Lists=$d/lists -o Dir::Cache::archives=$d/archives"
}

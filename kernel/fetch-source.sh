#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-source.sh SERIES: download Debian's linux-source package for SERIES
# (7.2 or 6.12), unpack it into build/src/SERIES and apply the export
# patches of kernel/patches/SERIES. Nothing is done when the tree is already
# unpacked from the same package with the same patches.
#
# 7.2 comes from sid through a private apt sources list and lists directory,
# so the system's apt configuration is never touched. If sid no longer has
# 7.2, the newest 7.x whose patches apply is used, and said.

set -euo pipefail
. "$(dirname "$0")/common.sh"

series=${1:?usage: fetch-source.sh 7.2|6.12}
debs=$CMABUF_CACHE/debs
aptdir=$CMABUF_CACHE/apt-sid
mkdir -p "$debs" "$aptdir/lists/partial"

sid_apt() {
	local cmd=$1
	shift
	"$cmd" -q -o Dir::Etc::SourceList="$aptdir/sid.sources" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$aptdir/lists" \
		-o Dir::Cache="$aptdir/cache" \
		-o APT::Sandbox::User=root "$@"
}

# Print "package version" of the candidates, best first.
candidates_sid() {
	cat >"$aptdir/sid.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Architectures: all
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	mkdir -p "$aptdir/cache"
	sid_apt apt-get update >&2 || log "sid lists could not be updated; trying cached ones"
	local pkgs
	pkgs=$(sid_apt apt-cache pkgnames linux-source-7. 2>/dev/null |
		grep -E '^linux-source-7\.[0-9]+$' | sort -t. -k2,2nr || true)
	# The series we were asked for comes first, then the newer ones.
	for p in linux-source-$series $pkgs; do
		local v
		v=$(sid_apt apt-cache show --no-all-versions "$p" 2>/dev/null |
			sed -n 's/^Version: //p' | head -n 1)
		[ -n "$v" ] && echo "$p $v"
	done | awk '!seen[$1]++'
}

candidates_bookworm() {
	local v
	v=$(apt-cache policy "linux-source-$series" | sed -n 's/^ *Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] && echo "linux-source-$series $v"
	return 0
}

# Make sure the .deb of "package version" is in the cache; print its path.
fetch_deb() {
	local pkg=$1 ver=$2 file
	file=$debs/${pkg}_${ver/:/%3a}_all.deb
	if [ ! -s "$file" ]; then
		log "downloading $pkg $ver"
		if [ "$series" = 6.12 ]; then
			(cd "$debs" && apt-get -q -o APT::Sandbox::User=root download "$pkg=$ver" >&2)
		else
			(cd "$debs" && sid_apt apt-get download "$pkg=$ver" >&2)
		fi
	fi
	[ -s "$file" ] || return 1
	echo "$file"
}

# The newest cached .deb for the series, for when no mirror answers.
cached_deb() {
	ls -1 "$debs"/linux-source-"$series"_*_all.deb 2>/dev/null | sort -V | tail -n 1
}

unpack() {
	local deb=$1 dest=$2 pkgver
	pkgver=$(basename "$deb" _all.deb)
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	log "unpacking $pkgver"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
		xz -T0 -dc | tar -x -C "$dest.tmp" --strip-components=1
	local p
	for p in "${patches[@]}"; do
		if ! patch -d "$dest.tmp" -p1 -s --no-backup-if-mismatch <"$p"; then
			rm -rf "$dest.tmp"
			return 1
		fi
	done
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
}

dest=$CMABUF_BUILD/src/$series
mapfile -t patches < <(series_patches "$series")
[ ${#patches[@]} -gt 0 ] || die "no patches in kernel/patches/$series"
want_patches=$(cat "${patches[@]}" | sha256sum | cut -c1-16)

if [ "$series" = 6.12 ]; then
	list=$(candidates_bookworm)
else
	list=$(candidates_sid)
fi

debfile=
while read -r pkg ver; do
	[ -n "$pkg" ] || continue
	debfile=$(fetch_deb "$pkg" "$ver") || { debfile=; continue; }
	stamp="$(basename "$debfile") patches:$want_patches"
	if [ -f "$dest/.cmabuf-source" ] && [ "$(cat "$dest/.cmabuf-source")" = "$stamp" ]; then
		log "$series: $(basename "$debfile") already unpacked and patched"
		exit 0
	fi
	if unpack "$debfile" "$dest"; then
		echo "$stamp" >"$dest/.cmabuf-source"
		[ "$pkg" = "linux-source-$series" ] || log "NOTE: $pkg $ver used for the $series kernel"
		log "$series: $(make -s -C "$dest" kernelversion) ready in $dest"
		exit 0
	fi
	log "the $series patches do not apply to $pkg $ver; trying the next candidate"
done <<<"$list"

debfile=$(cached_deb)
[ -n "$debfile" ] || die "no linux-source package for $series could be fetched"
stamp="$(basename "$debfile") patches:$want_patches"
if [ -f "$dest/.cmabuf-source" ] && [ "$(cat "$dest/.cmabuf-source")" = "$stamp" ]; then
	exit 0
fi
unpack "$debfile" "$dest" || die "the $series patches do not apply to $(basename "$debfile")"
echo "$stamp" >"$dest/.cmabuf-source"

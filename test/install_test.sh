#!/bin/sh
# install_test.sh BUILD_DIR SOURCE_DIR - install pvspin into a temporary
# prefix, then build and run examples/counter.c twice: with pkg-config
# (pvspin.pc, its flags alone: they carry -pthread) and with CMake's
# find_package(pvspin).
set -eu
build=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n1); libdir=${libdir%/pkgconfig}
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# the shared library's real file is named after its soname and the rest
# of its version (libpvspin.so.2 -> libpvspin.so.2.0.0; it was
# libpvspin.so.0.2.0, the project's version), and both links are there
real=$(readlink -f "$libdir/libpvspin.so")
soname=$(readelf -d "$real" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
case $soname in
libpvspin.so.[0-9]*) ;;
*) echo "install_test: $real has no soname libpvspin.so.N: '$soname'"; exit 1;;
esac
case ${real##*/} in
"$soname".[0-9]*.[0-9]*) ;;
*) echo "install_test: the real file ${real##*/} does not start with its soname $soname"; exit 1;;
esac
[ "$libdir/$soname" -ef "$real" ] ||
	{ echo "install_test: no link $soname to ${real##*/} in $libdir"; exit 1; }
# the .pc's paths are normalised (libdir was ".../lib/pkgconfig/../..//lib")
# and name the installed directories
for v in prefix libdir includedir; do
	p=$(pkg-config --variable=$v pvspin)
	case $p in
	*//*) echo "install_test: pkg-config --variable=$v pvspin has a '//': $p"; exit 1;;
	esac
done
[ "$(pkg-config --variable=libdir pvspin)" -ef "$libdir" ] &&
	[ "$(pkg-config --variable=includedir pvspin)" -ef "$tmp/prefix/include" ] &&
	[ "$(pkg-config --variable=prefix pvspin)" -ef "$tmp/prefix" ] || {
	echo "install_test: pvspin.pc names other directories: $(pkg-config --variable=prefix pvspin)" \
		"$(pkg-config --variable=libdir pvspin) $(pkg-config --variable=includedir pvspin)"
	exit 1
}
# -pthread in both --cflags and --libs (not only Libs.private): a program
# built with the flags alone must link on a glibc before 2.34 too
for f in --cflags --libs; do
	case " $(pkg-config $f pvspin) " in
	*" -pthread "*) ;;
	*) echo "install_test: pkg-config $f pvspin has no -pthread: $(pkg-config $f pvspin)"; exit 1;;
	esac
done
cc "$src/examples/counter.c" $(pkg-config --cflags --libs pvspin) -o "$tmp/counter_pc"
LD_LIBRARY_PATH="$libdir" "$tmp/counter_pc"
cmake -S "$src/examples/find_package" -B "$tmp/fp" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/fp" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/fp/counter"
echo "install_test: pkg-config and find_package builds both ran"

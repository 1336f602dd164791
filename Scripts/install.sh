#!/usr/bin/env bash
# Installs Graft under a prefix (default /usr/local):
#   PREFIX/bin/graft, graft-child, graft-workbench
#   PREFIX/include/graft/graft.h           the plugin ABI
#   PREFIX/include/graft/graft_wasm.h      the WebAssembly plugin ABI (docs/WasmABI.md), and
#   PREFIX/include/graft/graft_wasm_bridge.c  what builds a graft.h plugin as WebAssembly
#   PREFIX/lib/pkgconfig/graft.pc           so that `pkg-config --cflags graft` works
#   PREFIX/lib/graft/plugins/               the first-party plugins (DatePicker, Checkout)
#   PREFIX/share/graft/installed-files      what --uninstall removes
#
# Usage: Scripts/install.sh [--prefix DIR] [--from BUILD_FOLDER] [--uninstall]
#   --prefix DIR   where to install (default /usr/local; ~/.local needs no root)
#   --from DIR     install the products already built in DIR (for example
#                  .build/debug) instead of building a release first
#   --uninstall    remove what an earlier install under the prefix put there
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
from=""
uninstall=false
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --from) from="${2:?--from needs a build folder}"; shift 2 ;;
        --from=*) from="${1#--from=}"; shift ;;
        --uninstall) uninstall=true; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done
case "$prefix" in
    /*) ;;
    *) prefix="$(pwd)/$prefix" ;;
esac
manifest="$prefix/share/graft/installed-files"

if $uninstall; then
    if [ ! -f "$manifest" ]; then
        echo "install.sh: nothing to uninstall: $manifest does not exist" >&2
        exit 1
    fi
    while IFS= read -r file; do rm -f "$file"; done < "$manifest"
    rm -f "$manifest"
    # Folders only if the install left them empty.
    for folder in "$prefix/share/graft" "$prefix/lib/graft/plugins" "$prefix/lib/graft" "$prefix/include/graft"; do
        rmdir "$folder" 2>/dev/null || true
    done
    echo "Removed Graft from $prefix."
    exit 0
fi

# Fail before building when the prefix cannot be written.
probe="$prefix"
while [ ! -e "$probe" ]; do probe="$(dirname "$probe")"; done
if [ ! -w "$probe" ]; then
    echo "install.sh: $probe is not writable: run it with sudo, or choose another prefix (--prefix ~/.local)" >&2
    exit 1
fi

if [ -z "$from" ]; then
    Scripts/prerequisites.sh
    # Only what is installed (the benches and the example apps are not).
    echo "Building graft, graft-child, graft-workbench and the first-party plugins (release): the first build takes several minutes (about 7 on two cores)."
    for product in graft graft-child graft-workbench DatePicker Checkout; do
        swift build -c release --static-swift-stdlib --product "$product"
    done
    from="$(swift build -c release --static-swift-stdlib --show-bin-path)"
fi
for product in graft graft-child graft-workbench libDatePicker.so libCheckout.so; do
    if [ ! -f "$from/$product" ]; then
        echo "install.sh: $from/$product is missing: build it first (swift build), or leave out --from" >&2
        exit 1
    fi
done
version="$("$from/graft" --version)"

installed=()
put() { # mode source destination
    install -m "$1" "$2" "$3"
    installed+=("$3")
}
install -d -m 0755 "$prefix/bin" "$prefix/include/graft" "$prefix/lib/pkgconfig" "$prefix/lib/graft/plugins" "$prefix/share/graft"
for tool in graft graft-child graft-workbench; do put 0755 "$from/$tool" "$prefix/bin/$tool"; done
put 0644 Sources/CGraft/include/graft.h "$prefix/include/graft/graft.h"
put 0644 Sources/CGraft/include/graft_wasm.h "$prefix/include/graft/graft_wasm.h"
put 0644 Sources/CGraft/include/graft_wasm_bridge.c "$prefix/include/graft/graft_wasm_bridge.c"
for plugin in libDatePicker.so libCheckout.so; do put 0755 "$from/$plugin" "$prefix/lib/graft/plugins/$plugin"; done

pc="$(mktemp)"
trap 'rm -f "$pc"' EXIT
cat > "$pc" <<PC
prefix=$prefix
includedir=\${prefix}/include

Name: graft
Description: The Graft plugin ABI (graft.h): custom components, validators and actions for Graft hosts
Version: $version
Cflags: -I\${includedir}/graft
PC
put 0644 "$pc" "$prefix/lib/pkgconfig/graft.pc"
printf '%s\n' "${installed[@]}" > "$manifest"
chmod 0644 "$manifest"

echo "Installed Graft $version under $prefix:"
printf '  %s\n' "${installed[@]}"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "Add $prefix/bin to PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
if ! pkg-config --variable=pc_path pkg-config 2>/dev/null | tr ':' '\n' | grep -qx "$prefix/lib/pkgconfig"; then
    echo "For pkg-config: export PKG_CONFIG_PATH=\"$prefix/lib/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}\""
fi
echo "Build a C plugin: cc \$(pkg-config --cflags graft) -shared -fPIC -o libacme.so acme.c"

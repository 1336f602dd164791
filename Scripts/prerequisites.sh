#!/usr/bin/env bash
# What building Graft needs besides the Swift toolchain: libffi's headers (the
# native validators are called through libffi), libseccomp's (the sandbox of
# every child that runs plugin code), pkg-config, a C compiler (the
# tests and plugin authors use `cc`), make, zlib's headers (the C guide's
# example of a library function as a validator, which a test builds),
# libsodium's (publishers' signatures, in minisign's format) and minisign (the
# tests sign with it, and check that it verifies what `graft sign` writes), and
# clang 14 with lld and wasi-libc (WebAssembly plugins: the tests build C for
# wasm32-wasi; the Swift toolchain's clang lacks WASI's runtime). With --browser, also Chromium
# and chromedriver (the workbench's browser tests), and axe-core from PyPI
# (axe-playwright-python, which carries axe.min.js: the accessibility pass).
# With --bench, also GStreamer's gst-inspect-1.0 and about 100 of its plugins
# (`graft bench discovery` lists as many plugins as it does, side by side).
#
# Installs what is missing with apt-get when it can (root, or sudo without a
# password); otherwise stops, printing the exact command to run. Exit 0 when
# everything is there.
set -euo pipefail

browser=false
bench=false
for argument in "$@"; do
    case "$argument" in
        --browser) browser=true ;;
        --bench) bench=true ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "prerequisites.sh: unknown option '$argument' (try --help)" >&2; exit 2 ;;
    esac
done

# axe-core for the accessibility pass, through pip (the npm registry is not always reachable): PyPI's
# axe-playwright-python carries axe 4.12.1 as a plain axe.min.js, which is all the tests read, so it is
# installed without its dependencies (Playwright is not needed). Pinned, so every run checks the same rules.
if $browser && ! python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("axe_playwright_python") is None)' 2>/dev/null; then
    echo "installing: axe-playwright-python (pip, for its axe.min.js)"
    pip=(python3 -m pip install --quiet --disable-pip-version-check --no-deps axe-playwright-python==0.1.8)
    "${pip[@]}" 2>/dev/null || "${pip[@]}" --user || {
        echo "prerequisites: pip could not install axe-playwright-python==0.1.8; the accessibility tests need its axe.min.js" >&2
        exit 1
    }
fi

missing=()
if ! dpkg -s libffi-dev >/dev/null 2>&1 && ! pkg-config --exists libffi 2>/dev/null; then missing+=(libffi-dev); fi
if ! dpkg -s libseccomp-dev >/dev/null 2>&1 && ! pkg-config --exists libseccomp 2>/dev/null; then missing+=(libseccomp-dev); fi
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v make >/dev/null 2>&1 || missing+=(make)
if ! dpkg -s zlib1g-dev >/dev/null 2>&1 && ! pkg-config --exists zlib 2>/dev/null; then missing+=(zlib1g-dev); fi
if ! dpkg -s libsodium-dev >/dev/null 2>&1 && ! pkg-config --exists libsodium 2>/dev/null; then missing+=(libsodium-dev); fi
command -v minisign >/dev/null 2>&1 || missing+=(minisign)
command -v clang-14 >/dev/null 2>&1 || missing+=(clang-14)
command -v wasm-ld-14 >/dev/null 2>&1 || missing+=(lld-14)
[ -f /usr/lib/wasm32-wasi/libc.a ] || missing+=(wasi-libc)
[ -f /usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a ] || missing+=(libclang-rt-14-dev-wasm32)
if $browser; then
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
fi
if $bench; then
    command -v gst-inspect-1.0 >/dev/null 2>&1 || missing+=(gstreamer1.0-tools)
    dpkg -s gstreamer1.0-plugins-base >/dev/null 2>&1 || missing+=(gstreamer1.0-plugins-base)
    dpkg -s gstreamer1.0-plugins-good >/dev/null 2>&1 || missing+=(gstreamer1.0-plugins-good)
fi
if [ ${#missing[@]} -eq 0 ]; then
    echo "prerequisites: all present (libffi-dev, libseccomp-dev, pkg-config, cc, make, zlib1g-dev, libsodium-dev, minisign, clang-14 with wasi-libc$($browser && echo ', chromium, chromedriver')$($bench && echo ', gst-inspect-1.0 and its plugins'))"
    exit 0
fi

command="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing[*]}"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing: ${missing[*]}"
    bash -c "$command"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    echo "installing with sudo: ${missing[*]}"
    sudo -n bash -c "$command"
else
    echo "Graft needs: ${missing[*]}. Install them, then run this again:" >&2
    echo "    sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi

#!/usr/bin/env bash
# Prepares a private Wine prefix able to run Go 1.26 Windows binaries:
# builds the ProcessPrng shim and installs it as bcryptprimitives.dll.
# Usage: scripts/wine/setup.sh PREFIX
set -euo pipefail
prefix=${1:?usage: setup.sh PREFIX}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$prefix"
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;bcryptprimitives=n"
if [ ! -f "$prefix/system.reg" ]; then
    wineboot --init >/dev/null 2>&1 || true
    wineserver -w || true
fi
dll="$prefix/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$dll" ] || [ "$here/processprng.c" -nt "$dll" ]; then
    x86_64-w64-mingw32-gcc -O2 -shared -o "$dll" "$here/processprng.c" \
        "$here/bcryptprimitives.def" -ladvapi32
fi

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Generates ./configure. With --deps, first installs what building and
# testing nvlsim needs on Debian/Ubuntu (as root, with apt-get), skipping
# packages that are already installed.
#   usage: ./autogen.sh [--deps]
set -eu
cd "$(dirname "$0")"

# Build: compiler, autotools, pkg-config, GLib, json-glib, libcsv. Tests: Check, and
# valgrind for make memcheck. Plots (optional at run time): gnuplot.
# Sweeps across machines: Open MPI.
PACKAGES="gcc libc6-dev make autoconf automake pkg-config libglib2.0-dev libjson-glib-dev libcsv-dev check valgrind gnuplot-nox libopenmpi-dev openmpi-bin"

install_deps() {
    missing=""
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
            missing="$missing $p"
    done
    if [ -z "$missing" ]; then
        echo "autogen.sh: build dependencies already installed"
        return
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "autogen.sh: missing packages:$missing; run as root or install them" >&2
        exit 1
    fi
    echo "autogen.sh: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
}

case "${1:-}" in
--deps) install_deps ;;
"") ;;
*)
    echo "usage: ./autogen.sh [--deps]" >&2
    exit 2
    ;;
esac

mkdir -p m4
autoreconf --install --force

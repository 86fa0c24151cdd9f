#!/bin/sh
# autogen.sh - creates ./configure from configure.ac and Makefile.am.
# The tests report in TAP, whose driver automake ships but does not install.
# The unwind plugins' fragments are collected first: Makefile.am includes
# unwind-plugins/plugins.am (see unwind-plugins/README.md).
set -e
cd "$(dirname "$0")"
sh unwind-plugins/collect.sh
autoreconf -fi
cp "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh

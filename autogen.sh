#!/bin/sh
# autogen.sh - creates ./configure from configure.ac and Makefile.am.
# The tests report in TAP, whose driver automake ships but does not install.
set -e
cd "$(dirname "$0")"
autoreconf -fi
cp "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh

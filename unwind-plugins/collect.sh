#!/bin/sh
# collect.sh - writes unwind-plugins/plugins.am, the automake fragment that
# Makefile.am includes: one include line for each plugin folder's
# plugin.am, in the C locale's order of folder names.  Run by autogen.sh,
# and by make before anything else, so that a folder added or removed is
# built without touching a core file.  The file is rewritten only when the
# list changed (automake then runs again); a read-only source tree with an
# up-to-date list (make distcheck) is never written.
set -eu
cd "$(dirname "$0")"
LC_ALL=C
export LC_ALL
list="# plugins.am - made by collect.sh from the plugin folders; not in git."
for f in */plugin.am; do
	[ -f "$f" ] || continue
	list="$list
include \$(top_srcdir)/unwind-plugins/$f"
done
old=$(cat plugins.am 2>/dev/null || :)
[ "$list" = "$old" ] || printf '%s\n' "$list" > plugins.am

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The manual page cannot drift from --help: docs/nvlsim.1.in is what
# `nvlsim help --man` prints now (make man regenerates it); it has a
# section for every command nvlsim --help lists, and every option each
# command's --help lists; docs/nvlsim.1, as built, names the installed data
# folder ($pkgdatadir) and keeps no placeholder; groff reads it without a
# warning.
. "$top_srcdir/tests/cli/lib.sh"

if "$nvlsim" help --man >"$tmp/man" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
    ok "nvlsim help --man -> 0"
else
    fail "nvlsim help --man: $(cat "$tmp/err")"
fi
if cmp -s "$tmp/man" "$top_srcdir/docs/nvlsim.1.in"; then
    ok "docs/nvlsim.1.in is what nvlsim help --man prints now"
else
    fail "docs/nvlsim.1.in differs from what nvlsim help --man prints now (run make man):"
    diff "$top_srcdir/docs/nvlsim.1.in" "$tmp/man" | head -n 40
fi

# Every command of nvlsim --help, and every option of its --help, in the
# page: --help is GLib's rendering of the same tables, read back here.
"$nvlsim" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}' |
    grep -v '^help$' >"$tmp/commands"
n_commands=$(wc -l <"$tmp/commands")
[ "$n_commands" -ge 12 ] || fail "nvlsim --help lists $n_commands commands, expected 12 or more"
while read -r command; do
    heading=".SS $(printf '%s' "$command" | sed 's/-/\\-/g')"
    if ! grep -qxF -- "$heading" "$tmp/man"; then
        fail "the page has no section for $command"
        continue
    fi
    # The command's section: from its heading to the next.
    # (awk -v would read the heading's backslashes as escapes.)
    heading="$heading" awk '$0 == ENVIRON["heading"] {on = 1; next} /^\.S[SH] / {on = 0} on' \
        "$tmp/man" >"$tmp/section"
    "$nvlsim" help "$command" | sed -n 's/^  \(-., \)\{0,1\}--\([a-z0-9_-]*\).*/\2/p' |
        grep -v '^help$' >"$tmp/options"
    missing=
    while read -r option; do
        roff=$(printf '\\fB\\-\\-%s\\fR' "$option" | sed 's/\([^\\]\)-/\1\\-/g')
        grep -qF -- "$roff" "$tmp/section" || missing="$missing --$option"
    done <"$tmp/options"
    if [ -n "$missing" ]; then
        fail "the page's section for $command lacks$missing"
    else
        ok "the page's section for $command has its $(wc -l <"$tmp/options") options"
    fi
done <"$tmp/commands"

# The page as built and installed: the data folder filled in.
page="$top_builddir/docs/nvlsim.1"
if [ ! -f "$page" ]; then
    fail "$page was not built"
elif grep -q '@[a-z]*@\|\$(datadir)' "$page"; then
    fail "$page keeps a placeholder: $(grep -n '@[a-z]*@\|\$(datadir)' "$page" | head -n 3)"
elif ! grep -qF -- "$(printf '%s' "$pkgdatadir/models" | sed 's/-/\\-/g')" "$page" &&
    ! grep -qF -- "$pkgdatadir/models" "$page"; then
    fail "$page does not name $pkgdatadir/models"
else
    ok "docs/nvlsim.1 names $pkgdatadir"
fi

if command -v groff >/dev/null 2>&1; then
    if groff -man -Tutf8 -ww -z "$page" >"$tmp/groff" 2>&1 && [ ! -s "$tmp/groff" ]; then
        ok "groff -man -ww reads docs/nvlsim.1 without a warning"
    else
        fail "groff -man -ww: $(head -n 5 "$tmp/groff")"
    fi
else
    echo "skip: groff not found: the page is not formatted"
fi

[ "$n_fail" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Plots: with gnuplot present, every template of plots/ renders its fixture
# CSV (tests/data/plots/) to PNG, SVG and (with pdfcairo) PDF, each a real
# image of some size, and --plot on coll, run and validate renders end to
# end, leaving the image, its CSV and a script that renders it again; run
# --links-plot writes its summed CSV (link classes, --links-top links).
# Without gnuplot (a PATH that lacks it) --plot still exits 0, writes the
# CSV and the script and says in one line how to render them. A bad --plot
# name is a usage error; a missing or failing template, or a PDF without
# pdfcairo, is an error naming it; neither leaves a partial image.
. "$top_srcdir/tests/cli/lib.sh"
plots="$top_srcdir/plots"
data="$top_srcdir/tests/data/plots"

# is_image FILE: FILE is a PNG (its magic bytes), an SVG (it opens with
# <?xml or <svg) or a PDF (%PDF-), as its name says, of more than 2 KB.
is_image() {
    [ -f "$1" ] && [ "$(wc -c <"$1")" -gt 2048 ] || return 1
    case $1 in
    *.png) [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] ;;
    *.svg) head -n 1 "$1" | grep -q -e '^<?xml' -e '^<svg' ;;
    *.pdf) [ "$(head -c 5 "$1")" = "%PDF-" ] ;;
    *) return 1 ;;
    esac
}

# folder_is DIR NAMES...: DIR holds exactly NAMES (no temporary left).
folder_is() {
    dir=$1 want=""
    shift
    for name in "$@"; do want="$want$name "; done
    [ "$(ls -A "$dir" | tr '\n' ' ')" = "$want" ]
}

have_gnuplot=no
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=yes
# PDF is gnuplot's cairo terminal's: checked where this gnuplot has it.
have_pdf=no
if [ "$have_gnuplot" = yes ] && gnuplot -e 'set terminal' 2>&1 | grep -q '^ *pdfcairo '; then
    have_pdf=yes
fi
formats="png svg"
[ "$have_pdf" = yes ] && formats="png svg pdf"
[ "$have_pdf" = no ] && echo "skip: gnuplot lacks pdfcairo: no PDF rendered"
mkdir "$tmp/nognuplot"
tiny_scenario "$tmp/tiny.ini"

# Every template on its fixture, both formats: template, fixture, variables.
templates="busbw:busbw:series='system'
busbw:busbw:plottitle='one line'
breakdown:sweep:
breakdown:compare:label='system'
compare:compare:
heatmap:sweep:
heatmap:sweep:facets='dp'
scatter:validate:
linkutil:linkutil:"
if [ "$have_gnuplot" = yes ]; then
    mkdir "$tmp/templates"
    n=0
    echo "$templates" | while IFS=: read -r template fixture vars; do
        n=$((n + 1))
        for ext in $formats; do
            out="$tmp/templates/$n-$template.$ext"
            if gnuplot -e "datafile='$data/$fixture.csv'; outfile='$out'; $vars" \
                "$plots/$template.gp" >"$tmp/gp.err" 2>&1 && is_image "$out"; then
                ok "$template.gp on $fixture.csv ($vars) -> $ext, $(wc -c <"$out") bytes"
            else
                echo "FAIL: $template.gp on $fixture.csv ($vars) -> $ext:"
                cat "$tmp/gp.err"
                ls -l "$out" 2>&1
                echo x >>"$tmp/template-failures"
            fi
        done
    done
    if [ -f "$tmp/template-failures" ]; then
        n_fail=$((n_fail + $(wc -l <"$tmp/template-failures")))
    fi
    # A template without its two variables says how to call it.
    if ! gnuplot "$plots/busbw.gp" >"$tmp/gp.err" 2>&1 && grep -q "usage:" "$tmp/gp.err"; then
        ok "a template without datafile and outfile prints its usage and fails"
    else
        fail "busbw.gp without variables: $(cat "$tmp/gp.err")"
    fi
else
    echo "skip: gnuplot not found: templates not rendered (install gnuplot-nox)"
fi

# run_nvlsim STATUS PATH_OR_EMPTY ARGS...: runs nvlsim (with PATH if given),
# stdout and stderr to $tmp/out and $tmp/err; checks the exit status.
run_nvlsim() {
    want=$1 path=$2
    shift 2
    if [ -n "$path" ]; then
        PATH=$path "$nvlsim" "$@" >"$tmp/out" 2>"$tmp/err"
    else
        "$nvlsim" "$@" >"$tmp/out" 2>"$tmp/err"
    fi
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "nvlsim $*: exit $got, expected $want: $(cat "$tmp/err")"
        return 1
    fi
    return 0
}

# --plot end to end with gnuplot: the image, its CSV and its script.
if [ "$have_gnuplot" = yes ]; then
    mkdir "$tmp/coll" "$tmp/run" "$tmp/run2" "$tmp/val"
    if run_nvlsim 0 "" coll -b 1K -e 16M --plot "$tmp/coll/x.png" &&
        is_image "$tmp/coll/x.png" && folder_is "$tmp/coll" x.csv x.gp x.png &&
        head -n 1 "$tmp/coll/x.csv" | grep -q '^size_bytes,.*busbw_GB_per_s' &&
        [ ! -s "$tmp/err" ]; then
        ok "coll --plot x.png: x.png, x.csv, x.gp"
    else
        fail "coll --plot x.png: $(ls -A "$tmp/coll" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
    if run_nvlsim 0 "" run "$tmp/tiny.ini" --plot "$tmp/run/y.svg" &&
        is_image "$tmp/run/y.svg" && folder_is "$tmp/run" y.csv y.gp y.svg &&
        grep -q '^step time' "$tmp/out"; then
        ok "run TINY --plot y.svg: y.svg, y.csv, y.gp"
    else
        fail "run --plot y.svg: $(ls -A "$tmp/run" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
    # The script renders again, anywhere, and -e before it picks the output.
    rm "$tmp/run/y.svg"
    if (cd / && gnuplot "$tmp/run/y.gp") && is_image "$tmp/run/y.svg" &&
        gnuplot -e "outfile='$tmp/run/again.png'" "$tmp/run/y.gp" &&
        is_image "$tmp/run/again.png"; then
        ok "run's y.gp renders y.svg again from /, and again.png with -e outfile"
    else
        fail "y.gp does not render again"
    fi
    if run_nvlsim 0 "" run "$tmp/tiny.ini" -q --csv "$tmp/run2/given.csv" \
        --plot "$tmp/run2/y.png" && is_image "$tmp/run2/y.png" &&
        folder_is "$tmp/run2" given.csv y.gp y.png && grep -q "given.csv'" "$tmp/run2/y.gp"; then
        ok "run --csv given.csv --plot y.png plots given.csv"
    else
        fail "run --csv --plot: $(ls -A "$tmp/run2" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
    if run_nvlsim 0 "" validate -q --plot "$tmp/val/v.png" "$top_srcdir/tests/data/validate-fixture.csv" &&
        is_image "$tmp/val/v.png" && folder_is "$tmp/val" v.csv v.gp v.png; then
        ok "validate --plot v.png: v.png, v.csv, v.gp"
    else
        fail "validate --plot: $(ls -A "$tmp/val" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
fi

# --links-plot: the summed CSV beside the plot, one column a series (the
# link classes, then the --links-top busiest links, 8 by default) and one
# row a time bin (the bins of --links' long format, which it leaves alone).
# n_series FILE PREFIX: how many header fields of FILE start with PREFIX.
n_series() {
    head -n 1 "$1" | tr ',' '\n' | grep -c "^$2"
}
if [ "$have_gnuplot" = yes ]; then
    mkdir "$tmp/links" "$tmp/links3"
    if run_nvlsim 0 "" run -q "$tmp/tiny.ini" --links "$tmp/links/long.csv" \
        --links-plot "$tmp/links/l.png" &&
        is_image "$tmp/links/l.png" && folder_is "$tmp/links" l.csv l.gp l.png long.csv &&
        head -n 1 "$tmp/links/l.csv" | grep -q '^time_s,class nvlink gpu-nvswitch,' &&
        [ "$(n_series "$tmp/links/l.csv" 'link ')" -eq 8 ] &&
        [ "$(n_series "$tmp/links/l.csv" 'class ')" -ge 1 ] &&
        [ "$(head -n 1 "$tmp/links/long.csv")" = time_s,link,utilization ] &&
        [ "$(($(wc -l <"$tmp/links/l.csv") - 1))" -eq \
            "$(tail -n +2 "$tmp/links/long.csv" | cut -d, -f1 | sort -u | wc -l)" ]; then
        ok "run --links-plot l.png: l.png, l.csv with time_s, classes and 8 links, a row per bin"
    else
        fail "run --links-plot: $(ls -A "$tmp/links" | tr '\n' ' ') $(head -n 1 "$tmp/links/l.csv") $(cat "$tmp/err")"
    fi
    if run_nvlsim 0 "" run -q "$tmp/tiny.ini" --links-plot "$tmp/links3/l.svg" --links-top 3 &&
        is_image "$tmp/links3/l.svg" && folder_is "$tmp/links3" l.csv l.gp l.svg &&
        [ "$(n_series "$tmp/links3/l.csv" 'link ')" -eq 3 ] &&
        [ "$(grep -c 'busiest link' "$tmp/links3/l.svg")" -ge 1 ]; then
        ok "run --links-plot --links-top 3: 3 link series"
    else
        fail "run --links-plot --links-top 3: $(head -n 1 "$tmp/links3/l.csv") $(cat "$tmp/err")"
    fi
fi
mkdir "$tmp/links-bad"
for args in "--links-top 3" "--links-plot $tmp/links-bad/l.png --links-top 65" \
    "--links-plot $tmp/links-bad/l.png --links-top x" \
    "--links-plot $tmp/links-bad/l.png --links $tmp/links-bad/l.csv"; do
    # shellcheck disable=SC2086 # the words of args are the options
    if run_nvlsim 2 "" run -q "$tmp/tiny.ini" $args && folder_is "$tmp/links-bad" &&
        [ "$(wc -l <"$tmp/err")" -eq 2 ]; then
        ok "run $args: exit 2, one line and the Try line, nothing written"
    else
        fail "run $args: $(ls -A "$tmp/links-bad" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
done

# sweep --plot past two axes: tp across, micro_batch up, and a panel per
# value of the third axis (small multiples), each panel titled with it; the
# script names the facet. The SVG of the same script shows the panels'
# titles, one per value of global_batch in results.csv.
cat >"$tmp/sweep3.ini" <<'EOF'
[sweep]
base = tiny.ini
[axes]
layout.tp = 2, 4
batch.micro_batch = 1, 2
batch.global_batch = 8, 16
EOF
if [ "$have_gnuplot" = yes ]; then
    mkdir "$tmp/sweep3"
    if run_nvlsim 0 "" sweep "$tmp/sweep3.ini" --out "$tmp/sweep3/out" --plot "$tmp/sweep3/h.png" &&
        is_image "$tmp/sweep3/h.png" &&
        grep -q "facets = 'batch.global_batch'" "$tmp/sweep3/h.gp" &&
        grep -q "xcol = 'layout.tp'" "$tmp/sweep3/h.gp" &&
        gnuplot -e "outfile='$tmp/sweep3/h.svg'" "$tmp/sweep3/h.gp" && is_image "$tmp/sweep3/h.svg"; then
        values=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "batch.global_batch") c = i}
            NR > 1 {print $c}' "$tmp/sweep3/out/results.csv" | sort -u | tr '\n' ' ')
        panels=$(grep -o 'batch.global_batch = [0-9]*' "$tmp/sweep3/h.svg" |
            sed 's/.* = //' | sort -u | tr '\n' ' ')
        n_titles=$(grep -c 'batch.global_batch = ' "$tmp/sweep3/h.svg")
        if [ "$values" = "16 8 " ] && [ "$panels" = "$values" ] && [ "$n_titles" -eq 2 ]; then
            ok "sweep --plot, 3 axes: a panel per value of batch.global_batch ($panels)"
        else
            fail "sweep --plot, 3 axes: values '$values', panels '$panels', $n_titles titles"
        fi
    else
        fail "sweep --plot, 3 axes: $(ls -A "$tmp/sweep3" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
fi

# Without gnuplot: exit 0, the CSV and the script, and a one-line note.
mkdir "$tmp/no"
for cmd in coll run validate; do
    case $cmd in
    coll) set -- coll -b 1K -e 64K ;;
    run) set -- run -q "$tmp/tiny.ini" ;;
    validate) set -- validate -q "$top_srcdir/tests/data/validate-fixture.csv" ;;
    esac
    mkdir "$tmp/no/$cmd"
    if run_nvlsim 0 "$tmp/nognuplot" "$@" --plot "$tmp/no/$cmd/p.png" &&
        folder_is "$tmp/no/$cmd" p.csv p.gp &&
        [ "$(cat "$tmp/err")" = "nvlsim $cmd: gnuplot not found: render with: gnuplot $tmp/no/$cmd/p.gp" ]; then
        ok "$cmd --plot without gnuplot: exit 0, p.csv and p.gp, the note"
    else
        fail "$cmd --plot without gnuplot: $(ls -A "$tmp/no/$cmd" | tr '\n' ' ') stderr: $(cat "$tmp/err")"
    fi
done
if [ "$have_gnuplot" = yes ]; then
    if gnuplot "$tmp/no/run/p.gp" && is_image "$tmp/no/run/p.png"; then
        ok "the script written without gnuplot renders where gnuplot is"
    else
        fail "gnuplot $tmp/no/run/p.gp did not render"
    fi
fi

# PDF: rendered where gnuplot has pdfcairo; a gnuplot without it (one that
# says it lacks it) is an error of one line naming the terminal, exit 1,
# and no image.
if [ "$have_pdf" = yes ]; then
    mkdir "$tmp/pdf" "$tmp/nopdf" "$tmp/fakegp"
    if run_nvlsim 0 "" coll -b 1K -e 1M --plot "$tmp/pdf/x.pdf" && is_image "$tmp/pdf/x.pdf" &&
        folder_is "$tmp/pdf" x.csv x.gp x.pdf; then
        ok "coll --plot x.pdf: a PDF, x.csv, x.gp"
    else
        fail "coll --plot x.pdf: $(ls -A "$tmp/pdf" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
    real_gnuplot=$(command -v gnuplot)
    printf '#!/bin/sh\nexec "%s" -e "nvlsim_terminals=%s" "$@"\n' "$real_gnuplot" "'png svg'" \
        >"$tmp/fakegp/gnuplot"
    chmod +x "$tmp/fakegp/gnuplot"
    if run_nvlsim 1 "$tmp/fakegp:$PATH" coll -b 1K -e 1M --plot "$tmp/nopdf/x.pdf" &&
        [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "x.gp failed (status 1): PDF needs gnuplot's pdfcairo terminal" "$tmp/err" &&
        folder_is "$tmp/nopdf" x.csv x.gp; then
        ok "coll --plot x.pdf without pdfcairo: exit 1, one line naming pdfcairo, no image"
    else
        fail "coll --plot x.pdf without pdfcairo: $(ls -A "$tmp/nopdf" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
fi

# A name that is not .png, .svg or .pdf: usage error before any work, no file.
mkdir "$tmp/bad"
if run_nvlsim 2 "" coll --plot "$tmp/bad/x.jpg" && folder_is "$tmp/bad" &&
    grep -q -- "--plot: $tmp/bad/x.jpg: expected a plot file name ending in .png, .svg or .pdf" "$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" -eq 2 ] &&
    [ "$(tail -n 1 "$tmp/err")" = "Try 'nvlsim coll --help' for more information." ]; then
    ok "coll --plot x.jpg: exit 2, one line and GNU's Try line, nothing written"
else
    fail "coll --plot x.jpg: $(cat "$tmp/err")"
fi
if run_nvlsim 2 "" run "$tmp/tiny.ini" --plot "$tmp/bad/y" && folder_is "$tmp/bad"; then
    ok "run --plot without an extension: exit 2, nothing written"
else
    fail "run --plot y: $(ls -A "$tmp/bad" | tr '\n' ' ')"
fi

# A missing template, and one gnuplot fails on: exit 1, one line, no image.
mkdir "$tmp/tpl" "$tmp/miss" "$tmp/broken"
NVLSIM_PLOTS="$tmp/tpl"
export NVLSIM_PLOTS
if run_nvlsim 1 "" run -q "$tmp/tiny.ini" --plot "$tmp/miss/y.png" &&
    grep -q "no plot template $tmp/tpl/breakdown.gp" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    folder_is "$tmp/miss" y.csv; then
    ok "run --plot with no template: exit 1, one line naming it"
else
    fail "run --plot with no template: $(ls -A "$tmp/miss" | tr '\n' ' ') $(cat "$tmp/err")"
fi
if [ "$have_gnuplot" = yes ]; then
    printf 'set terminal svg\nset output outfile\nplot no_such_thing\n' >"$tmp/tpl/breakdown.gp"
    if run_nvlsim 1 "" run -q "$tmp/tiny.ini" --plot "$tmp/broken/y.svg" &&
        grep -q "gnuplot $tmp/broken/y.gp failed (status 1): .*undefined variable: no_such_thing" "$tmp/err" &&
        [ "$(wc -l <"$tmp/err")" -eq 1 ] && folder_is "$tmp/broken" y.csv y.gp; then
        ok "run --plot with a failing template: exit 1, gnuplot's message, no image"
    else
        fail "run --plot with a failing template: $(ls -A "$tmp/broken" | tr '\n' ' ') $(cat "$tmp/err")"
    fi
fi

unset NVLSIM_PLOTS

[ "$n_fail" -eq 0 ] || echo "$n_fail failed"
[ "$n_fail" -eq 0 ]

#!/usr/bin/env bash
# A mixed class of 20 submissions for `cml-grade batch`, each a whole labs/-shaped tree (or a
# flat folder, or an archive), with what every one must get:
#   scripts/class-corpus.sh SUBS BATCH_OUT      # writes SUBS/<name>... and SUBS.expect/<name>
#   scripts/class-corpus.sh --check SUBS BATCH_OUT   # one line per student: ok or MISMATCH
# Planted bugs and attacks are the corpus's patches applied to one lab of a full solution
# (tests/planted, tests/attacks/gpu); attacks aim @OTHER@ at 0-sol, another student of the
# same batch, graded first.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

check=0
[ "${1:-}" = --check ] && { check=1; shift; }
subs=$(realpath -m "$1") out=$(realpath -m "$2")
expect="$subs.expect"

PLANTED="01_coalescing/lazy_timed_copy 02_transpose/two_tiles_no_barrier
03_bank_conflicts/degree_lookup_table 04_float4/vec4_tail_reads_past_end
05_soa_aos/soa_fields_swapped 06_zero_copy/host_computes_zero_copy
07_unified_memory/host_computes_um_add 01_coalescing/compile_error
02_transpose/clean_two_tiles_with_barrier"
ATTACKS="02_transpose/system_runs_reference 03_bank_conflicts/fake_ncu_csv
05_soa_aos/resolved_daemon_rewrites_reports 06_zero_copy/stdout_fake_records_flood
07_unified_memory/resolved_read_reference"

# A full solution tree at $1 (labs/-shaped).
solution_tree() { mkdir -p "$1" && for l in solutions/*/; do cp -r "$l" "$1/"; done; }

# Apply corpus entry $2 (lab/name under $3) to the solution tree $1, placeholders filled.
patched() {
    local tree=$1 entry=$2 base=$3 name=$4 lab=${2%%/*}
    solution_tree "$tree"
    sed -e "s|@ROOT@|$repo|g" -e "s|@OUT@|$out/students/$name|g" \
        -e "s|@OTHER@|$out/students/0-sol|g" "$base/$entry/bug.patch" |
        (cd "$tree/$lab" && patch -p1 -s) || echo "class-corpus: $entry does not apply" >&2
    { [ -s "$base/$entry/EXPECT" ] && sed "s|^|$lab |" "$base/$entry/EXPECT"; } \
        > "$expect/$name"
}

make_class() {
    rm -rf "$subs" "$expect" && mkdir -p "$subs" "$expect"
    solution_tree "$subs/0-sol"; : > "$expect/0-sol" # first: the attacks aim at it
    solution_tree "$subs/sol-tar.tmp"; tar -czf "$subs/sol-tar.tar.gz" -C "$subs/sol-tar.tmp" .
    rm -rf "$subs/sol-tar.tmp"; : > "$expect/sol-tar"
    mkdir -p "$subs/sol-flat" && cp solutions/*/*.cu "$subs/sol-flat/"; : > "$expect/sol-flat"
    mkdir -p "$subs/skel-a" && cp -r labs/*/ "$subs/skel-a/"; echo zero > "$expect/skel-a"
    (cd labs && { zip -qr "$subs/skel-zip.zip" . 2>/dev/null || tar -czf "$subs/skel-zip.tar.gz" .; })
    echo zero > "$expect/skel-zip"
    head -c 4000 /dev/urandom > "$subs/corrupt.tar.gz"; echo unusable > "$expect/corrupt"
    local i=0
    for e in $PLANTED; do i=$((i + 1)); patched "$subs/planted-$i" "$e" tests/planted "planted-$i"; done
    i=0
    for e in $ATTACKS; do i=$((i + 1)); patched "$subs/attack-$i" "$e" tests/attacks/gpu "attack-$i"; done
    ls "$subs" | wc -l
}

# Whether student $1's results are what $expect/$1 says.
verdict() {
    local name=$1 want st
    st=$(cut -f1 "$out/students/$name/status" 2>/dev/null || echo none)
    want=$(head -n1 "$expect/$name")
    if [ "$want" = unusable ]; then
        [ "$st" = unusable ] && echo ok || echo "MISMATCH (status $st, want unusable)"; return
    fi
    [ "$st" = graded ] || { echo "MISMATCH (status $st)"; return; }
    local sum="$out/students/$name/summary.tsv" bad=""
    if [ "$want" = zero ]; then
        awk -F'\t' '$4 > 0 {exit 1}' "$sum" || bad="a skeleton task scored"
    else
        while IFS=$'\t' read -r lab task status _ _ detail; do
            w=$(awk -v l="$lab" -v t="$task" '$1 == l && $2 == t {print $3}' "$expect/$name")
            text=$(awk -v l="$lab" -v t="$task" '$1 == l && $2 == t {$1 = $2 = $3 = ""; sub(/^ +/, ""); print}' "$expect/$name")
            [ -n "$w" ] || w=passed
            if [[ "|$w|" != *"|$status|"* ]] || { [ -n "$text" ] && [[ "$detail" != *"$text"* ]]; }; then
                bad="$lab $task: $status, want $w${text:+ '$text'}"
            fi
        done < "$sum"
    fi
    [ -z "$bad" ] && echo ok || echo "MISMATCH ($bad)"
}

if [ $check = 1 ]; then
    fails=0
    for f in "$expect"/*; do
        n=$(basename "$f") v=$(verdict "$n")
        printf '%-12s %s\n' "$n" "$v"
        [ "$v" = ok ] || fails=$((fails + 1))
    done
    echo "class-corpus: $fails mismatch(es)"
    exit $((fails > 0))
fi
make_class

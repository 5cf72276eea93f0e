#!/usr/bin/env bash
# A mixed class of 20 submissions for `cml-grade batch`, in the shapes students and course
# platforms make them (a labs/-shaped folder, a zip with a top folder, Canvas-named loose
# files, a Moodle folder, a GitHub Classroom clone, a lab not handed in, a broken archive),
# with what every one must get:
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
07_unified_memory/host_computes_um_add"
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

# dir $2 zipped into $1 with dir's own name as the zip's top folder (zip, else python3).
zip_dir() {
    (cd "$(dirname "$2")" && { zip -qr "$1" "$(basename "$2")" 2>/dev/null ||
                               python3 -m zipfile -c "$1" "$(basename "$2")"; })
}

make_class() {
    rm -rf "$subs" "$expect" && mkdir -p "$subs" "$expect"
    solution_tree "$subs/0-sol"; : > "$expect/0-sol" # first: the attacks aim at it
    # a zip with a top folder and labs/ inside it, as zipping one's own checkout makes
    local tmp; tmp=$(mktemp -d)
    mkdir -p "$tmp/myname/labs" && solution_tree "$tmp/myname/labs"
    zip_dir "$subs/top-zip.zip" "$tmp/myname"; rm -rf "$tmp"; : > "$expect/top-zip"
    # Canvas "Download Submissions" names: name[_LATE]_userid_submissionid_file
    for f in solutions/*/*.cu; do cp "$f" "$subs/zoeemile_LATE_2002_9001_$(basename "$f")"; done
    : > "$expect/zoeemile_2002"
    # Moodle "Download all submissions" in folders: Full Name_id_assignsubmission_file_
    solution_tree "$subs/Émile Zoë_3003_assignsubmission_file_"; : > "$expect/Emile_Zoe_3003"
    # GitHub Classroom: a clone, .git/ and all, the labs under labs/
    mkdir -p "$subs/lab1-octocat/labs" "$subs/lab1-octocat/.git/objects"
    solution_tree "$subs/lab1-octocat/labs"; echo "ref: refs/heads/main" > "$subs/lab1-octocat/.git/HEAD"
    : > "$expect/lab1-octocat"
    # lab 05 not handed in: missing in every task of it, the rest full
    solution_tree "$subs/no-lab05"; rm -rf "$subs/no-lab05/05_soa_aos"
    printf '05_soa_aos %s missing not handed in\n' 5.1 5.2 5.3 > "$expect/no-lab05"
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

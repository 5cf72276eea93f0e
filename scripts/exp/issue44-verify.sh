#!/usr/bin/env bash
# Issue 44's GPU checks (contracts over the whole domain; red team), in steps that fit a
# 10-minute device call. Logs under ${OUT:-build/issue44}; a short table last.
#   scripts/exp/issue44-verify.sh grading        build; the solutions cold (timed), the skeletons;
#                                               the gpu-grading tests (solutions under 5 seeds)
#   scripts/exp/issue44-verify.sh solutions      build; the solutions cold (timed) alone
#   scripts/exp/issue44-verify.sh corpus A..B    grade-corpus.sh on the corpus entries A..B (1-based,
#                                               planted then attacks, sorted), JOBS=${JOBS:-4}
#   scripts/exp/issue44-verify.sh honest         grade-honest.sh, JOBS=${JOBS:-3}
#   scripts/exp/issue44-verify.sh redteam        the red team's submissions (redteam/, not yet
#                                               in the corpora): adversarial by grade-corpus.sh,
#                                               honest by grade-honest.sh
#   scripts/exp/issue44-verify.sh adv DIR...     grade-corpus.sh on the folders named
#   scripts/exp/issue44-verify.sh hon DIR...     grade-honest.sh on the folders named
#   scripts/exp/issue44-verify.sh lab NN...      the solutions of the labs named
#   scripts/exp/issue44-verify.sh seeds [N]      the solutions under N seeds (5), a line each
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/issue44}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1
t0=$(date +%s)
make -j"$(nproc)" all build/check_tests build/fake_lab > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s ($(cat "$out/gpu.txt"))"
case ${1:-grading} in
grading|solutions)
    rm -rf build/cache # cold: the wall time includes every build
    s=$(date +%s.%N)
    build/cml-grade grade --submission solutions --out "$out/solutions" --no-color \
        > "$out/grade-solutions.log" 2>&1
    rc=$?
    e=$(date +%s.%N)
    printf 'solutions cold: rc %d, %.1f s, %s\n' "$rc" "$(awk -v a="$s" -v b="$e" 'BEGIN {print b - a}')" \
        "$(grep -o 'Score: [0-9.]*/[0-9.]*' "$out/grade-solutions.log" | tail -1)"
    grep -E 'sanitizers: longest|graded [0-9]+ labs' "$out/grade-solutions.log"
    [ "$1" = solutions ] && { echo "total: $(( $(date +%s) - t0 )) s"; exit; }
    build/cml-grade grade --submission labs --out "$out/skeletons" --no-color \
        > "$out/grade-skeletons.log" 2>&1
    printf 'skeletons: rc %d, %s\n' $? \
        "$(grep -o 'Score: [0-9.]*/[0-9.]*' "$out/grade-skeletons.log" | tail -1)"
    CK_RUN_SUITE=gpu CK_INCLUDE_TAGS=gpu-grading build/check_tests > "$out/gpu-grading.log" 2>&1
    printf 'gpu-grading tests: rc %d: %s\n' $? "$(tail -n 1 "$out/gpu-grading.log")"
    ;;
corpus)
    mapfile -t all < <(find tests/planted tests/attacks/gpu -mindepth 2 -maxdepth 2 -type d \
                       -exec test -f '{}/bug.patch' ';' -print | sort)
    range=${2:-1..${#all[@]}}
    a=${range%..*} b=${range#*..}
    echo "corpus: ${#all[@]} entries, grading $a..$b"
    OUT="$out/corpus" JOBS=${JOBS:-4} scripts/grade-corpus.sh "${all[@]:$((a - 1)):$((b - a + 1))}" \
        > "$out/corpus-$a-$b.txt" 2>&1
    echo "ok: $(grep -c ': ok$\|: ok ' "$out/corpus-$a-$b.txt"), not ok:"
    grep -v ': ok' "$out/corpus-$a-$b.txt" | head -20
    ;;
honest)
    OUT="$out/honest" JOBS=${JOBS:-3} scripts/grade-honest.sh > "$out/honest.txt" 2>&1
    echo "honest: rc $?, ok $(grep -c ' ok$' "$out/honest.txt") of $(grep -c '' "$out/honest.txt")"
    grep -v ' ok$' "$out/honest.txt" | head -20
    ;;
redteam)
    mapfile -t adv < <(find redteam/adversarial -mindepth 2 -maxdepth 2 -type d | sort)
    mapfile -t hon < <(find redteam/honest -mindepth 2 -maxdepth 2 -type d | sort)
    OUT="$out/rt-adv" JOBS=${JOBS:-4} scripts/grade-corpus.sh "${adv[@]}" > "$out/rt-adv.txt" 2>&1
    OUT="$out/rt-hon" JOBS=${JOBS:-4} scripts/grade-honest.sh "${hon[@]}" > "$out/rt-hon.txt" 2>&1
    echo "red team adversarial: ok $(grep -c ': ok' "$out/rt-adv.txt") of ${#adv[@]}"
    grep -v ': ok' "$out/rt-adv.txt" | head -30
    echo "red team honest: ok $(grep -c ' ok$' "$out/rt-hon.txt") of ${#hon[@]}"
    grep -v ' ok$' "$out/rt-hon.txt" | head -30
    ;;
adv) # adversarial or planted folders named on the command line (bug.patch and EXPECT each)
    shift
    OUT="$out/adv" JOBS=${JOBS:-4} scripts/grade-corpus.sh "$@" > "$out/adv.txt" 2>&1
    echo "adversarial: ok $(grep -c ': ok' "$out/adv.txt") of $#"
    grep -v ': ok' "$out/adv.txt" | head -40
    ;;
hon) # honest folders named on the command line
    shift
    OUT="$out/hon" JOBS=${JOBS:-4} scripts/grade-honest.sh "$@" > "$out/hon.txt" 2>&1
    echo "honest: ok $(grep -c ' ok$' "$out/hon.txt") of $#"
    grep -v ' ok$' "$out/hon.txt" | head -40
    ;;
seeds) # the solutions under N seeds (default 5), one line each as it ends: the gpu-grading
    # test's loop, whose output Check holds until the test ends (five gradings take about 450 s on
    # an H200, so a call that runs out of time keeps the seeds it finished)
    s0=$(date +%s)
    for k in $(seq 1 "${2:-5}"); do
        seed=$(( s0 + 7919 * k ))
        build/cml-grade grade --submission solutions --seed "$seed" --out "$out/seed-$k" \
            --no-color > "$out/seed-$k.log" 2>&1
        rc=$?
        bad=$(awk -F'\t' '$3 != "passed" || $4 < $5 {print $1, $2, $3, $4 "/" $5}' \
              "$out/seed-$k/summary.tsv" 2>/dev/null | head -3 | tr '\n' ';')
        echo "seed $seed: rc $rc, $(grep -o 'Score: [0-9.]*/[0-9.]*' "$out/seed-$k.log" | tail -1)${bad:+, not full: $bad}"
    done
    ;;
lab) # the solutions of the labs named, e.g. `lab 04 05`
    shift
    for l in "$@"; do
        build/cml-grade grade --lab "$l" --submission solutions --out "$out/sol-$l" \
            --no-color > "$out/sol-$l.log" 2>&1
        echo "solutions lab $l: rc $? $(grep -o 'Score: [0-9.]*/[0-9.]*' "$out/sol-$l.log" | tail -1)"
    done
    ;;
esac
echo "total: $(( $(date +%s) - t0 )) s"

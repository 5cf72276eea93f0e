#!/usr/bin/env bash
# Whether the technique phase's ncu runs at once hold inside the grader (branch ncu-phase): a
# calibrated grading of the solutions, timed by stage, then how many of its ncu details say they
# came from a lab's shared run (17 when all three labs' shared runs held: 3.2 four, 3.3a two,
# 3.3b three, 4.1, 4.2b, 6.1 and 6.2 two each), and the counts the runs read. Usage (GPU machine,
# repository root, after make all):   scripts/exp/ncu-phase-check.sh WORK
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(realpath -m "$1")
rm -rf "$work" && mkdir -p "$work"
build/cml-grade calibrate --out "$work/gpu.cal" > "$work/cal.log" 2>&1 || { tail -3 "$work/cal.log"; exit 1; }
scripts/exp/stage-times.sh "$work/out" --submission solutions --calibration "$work/gpu.cal" \
    > "$work/stages.log" 2>&1
grep -E "technique checks|sanitizers: [0-9]|graded" "$work/stages.log"
echo "ncu details from a shared run: $(grep -c 'in one ncu run' "$work/stages.log") of 17"
grep -oE '(inst_executed_op_[a-z_]+|aperture_[a-z]+|per_block_static\+launch__shared_mem_per_block_dynamic)\.?[a-z]* = [0-9]+' \
    "$work/stages.log" | sort | uniq -c

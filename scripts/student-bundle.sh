#!/usr/bin/env bash
# Write the student bundle (CLASS_GUIDE.md, "Distributing the skeletons") to the .tar.gz named
# by $1: labs/, common/, docs/ (the lecture notes), grader/ (sources and specs), the Makefile,
# and STUDENT.md as README.md, all under one folder `cuda-memory-labs/`. Never solutions/,
# tests/, scripts/, docs/bench/ (instructors' logs: class batches, planted-bug and attack lists,
# the reference's tuning variants) or build outputs: inside a git checkout only tracked files go.
set -euo pipefail

out=${1:?usage: scripts/student-bundle.sh OUT.tar.gz}
case $out in /*) ;; *) out="$PWD/$out" ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
for need in labs common docs grader/src grader/specs Makefile STUDENT.md; do
    [ -e "$need" ] || { echo "student-bundle: $top/$need is missing: run this in the full repository" >&2; exit 2; }
done

# The files that go: in a checkout, those git does not ignore (tracked or new: no build
# outputs; a copy whose index lags its files still sends the new ones), every regular file
# otherwise.
list() {
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$top" ls-files --cached --others --exclude-standard -- labs common docs grader |
            while read -r f; do [ -f "$f" ] && echo "$f"; done
    else
        find labs common docs grader -type f
    fi
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dest="$stage/cuda-memory-labs"
mkdir -p "$dest"
list | grep -v -e '^docs/bench/' | while IFS= read -r f; do
    [ -f "$f" ] || continue # deleted in the work tree but still tracked
    mkdir -p "$dest/$(dirname "$f")"
    cp -p "$f" "$dest/$f"
done
cp -p Makefile "$dest/Makefile"
cp -p STUDENT.md "$dest/README.md"

mkdir -p "$(dirname "$out")"
tar -C "$stage" -czf "$out.tmp" --owner=0 --group=0 cuda-memory-labs
mv "$out.tmp" "$out"
echo "student bundle: $out ($(tar -tzf "$out" | grep -vc '/$') files)"

#!/usr/bin/env bash
# Experiment: a compute-sanitizer for CML_SANITIZER that logs each run's exit status and the
# tail of its log to $CS_WRAP_LOG, and with CS_WRAP_STRIP=1 drops "--target-processes all".
log=/dev/null; args=()
while [ $# -gt 0 ]; do
    if [ "$1" = --log-file ]; then log=$2; args+=("$1" "$2"); shift 2; continue; fi
    if [ "${CS_WRAP_STRIP:-0}" = 1 ] && [ "$1" = --target-processes ]; then shift 2; continue; fi
    args+=("$1"); shift
done
compute-sanitizer "${args[@]}"; rc=$?
{ echo "rc $rc: ${args[*]:2:4} $(echo "${args[*]}" | grep -o -- '--case [^ ]*' | head -1)"
  [ $rc != 0 ] && tail -n 4 "$log"; } >> "${CS_WRAP_LOG:-/tmp/cs-wrap.log}"
exit $rc

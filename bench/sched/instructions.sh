#!/usr/bin/env bash
# Counts the instructions of one admit() and one schedule() of the scheduling
# framework under valgrind's callgrind, for each topology of `takt bench sched` at
# 2 and 256 processing elements: a measure of the cost growth with the number of
# PEs that does not depend on the machine's load (the timings of `takt bench sched`
# do). Usage: bench/sched/instructions.sh [path/to/takt] [PE counts...]
set -euo pipefail
takt=${1:-build/release/takt}
shift || true
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(2 256)
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Instructions collected inside `function` (inclusive) per call, for one configuration.
per_call() {
  local topology=$1 pes=$2 function=$3 calls_key=$4
  valgrind --tool=callgrind --callgrind-out-file="$work/out" --toggle-collect="$function" \
    "$takt" bench sched --quick --repeats 1 --pes "$pes" --topology "$topology" \
    --skip-per-stage --skip-idle --skip-baselines --json "$work/result.json" >/dev/null 2>"$work/log"
  local total calls
  total=$(sed -n 's/^==[0-9]*== Collected : //p' "$work/log")
  calls=$(python3 -c "import json,sys; print(json.load(open('$work/result.json'))['scaling']['topologies']['$topology']['$calls_key'][0])")
  python3 -c "print(f'{$total / $calls:.0f}')"
}

printf '%-16s %5s %12s %12s\n' topology PEs admit schedule
for topology in per-pe-balanced gedf-paws gedf-paws-64 partitioned-dm federated; do
  for pes in "${counts[@]}"; do
    admit=$(per_call "$topology" "$pes" 'takt::sched::Scheduler::admit*' admit_calls)
    schedule=$(per_call "$topology" "$pes" 'takt::sched::Scheduler::schedule*' schedule_calls)
    printf '%-16s %5s %12s %12s\n' "$topology" "$pes" "$admit" "$schedule"
  done
done
echo "(instructions per call, inclusive, counted by valgrind --tool=callgrind)"

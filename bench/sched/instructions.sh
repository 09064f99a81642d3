#!/usr/bin/env bash
# Counts the instructions of one admit() and one schedule() of the scheduling
# framework under valgrind's callgrind: for chains of 1 and 8 head-queue stages
# (the slope is the instructions per pipeline stage), and for each topology of
# `takt bench sched` at the PE counts given (default 2 and 256). A measure of cost
# that does not depend on the machine's load (the timings of `takt bench sched`
# do). Usage: bench/sched/instructions.sh [path/to/takt] [PE counts...]
set -euo pipefail
takt=${1:-build/release/takt}
shift || true
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(2 256)
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Instructions collected inside `function` (inclusive) per call of it, for one run
# of `takt bench sched` with the given arguments; `part` is the JSON object that
# counts the calls.
per_call() {
  local function=$1 calls_key=$2 part=$3
  shift 3
  valgrind --tool=callgrind --callgrind-out-file="$work/out" --toggle-collect="$function" \
    "$takt" bench sched --quick --repeats 1 --skip-idle --skip-baselines --json "$work/result.json" "$@" \
    >/dev/null 2>"$work/log"
  local total calls
  total=$(sed -n 's/^==[0-9]*== Collected : //p' "$work/log")
  calls=$(python3 -c "import json; d=json.load(open('$work/result.json')); print(d$part['$calls_key'][0])")
  python3 -c "print(f'{$total / $calls:.0f}')"
}

printf '%-16s %5s %12s %12s\n' chain stages admit schedule
declare -A stage_admit stage_schedule
for depth in 1 8; do
  stage_admit[$depth]=$(per_call 'takt::sched::Scheduler::admit*' admit_calls "['per_stage']" \
    --skip-scaling --depths "$depth")
  stage_schedule[$depth]=$(per_call 'takt::sched::Scheduler::schedule*' schedule_calls "['per_stage']" \
    --skip-scaling --depths "$depth")
  printf '%-16s %5s %12s %12s\n' head-queue "$depth" "${stage_admit[$depth]}" "${stage_schedule[$depth]}"
done
printf '%-16s %5s %12.0f %12.0f\n' "per stage" "" \
  "$(python3 -c "print((${stage_admit[8]} - ${stage_admit[1]}) / 7)")" \
  "$(python3 -c "print((${stage_schedule[8]} - ${stage_schedule[1]}) / 7)")"
echo

printf '%-16s %5s %12s %12s\n' topology PEs admit schedule
for topology in per-pe-balanced gedf-paws gedf-paws-64 partitioned-dm federated; do
  for pes in "${counts[@]}"; do
    part="['scaling']['topologies']['$topology']"
    admit=$(per_call 'takt::sched::Scheduler::admit*' admit_calls "$part" \
      --skip-per-stage --pes "$pes" --topology "$topology")
    schedule=$(per_call 'takt::sched::Scheduler::schedule*' schedule_calls "$part" \
      --skip-per-stage --pes "$pes" --topology "$topology")
    printf '%-16s %5s %12s %12s\n' "$topology" "$pes" "$admit" "$schedule"
  done
done
echo "(instructions per call, inclusive, counted by valgrind --tool=callgrind)"

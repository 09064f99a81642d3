#!/usr/bin/env bash
# Instructions per spawn of fib on one worker, counted by valgrind's callgrind, for
#   default        the runtime as built (strand-observer checks compiled in), no observer,
#   compiled-out   the runtime built with -DTAKT_RUNTIME_OBSERVER=0 (no checks at all),
#   observing      the default runtime with the profiler's SpanObserver installed.
# The first two show that the profiler's hook costs nothing measurable when it is off;
# the third what recording costs per spawn when it is on. Per spawn = (instructions of
# fib(20) − instructions of fib(16)) / (10,945 − 1,596 spawns), so start-up cancels out.
# Usage (from the repository root): tests/profiler/observer_cost.sh
set -euo pipefail
command -v valgrind >/dev/null || { echo "observer_cost.sh: valgrind is not installed" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sources=("$root"/src/runtime/*.cpp "$root"/src/os/*.cpp "$root/src/apps/fib.cpp" "$root/src/profiler/span_observer.cpp"
         "$root/tests/profiler/observer_cost_main.cpp")
flags=(-std=c++20 -O2 -g -DNDEBUG "-I$root/include" "-I$root/src")
libs=(-lboost_context -lfmt -lpthread)
g++ "${flags[@]}" "${sources[@]}" "${libs[@]}" -o "$work/default"
g++ "${flags[@]}" -DTAKT_RUNTIME_OBSERVER=0 "${sources[@]}" "${libs[@]}" -o "$work/compiled-out"

instructions() {  # program n [observe]
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/$1" "${@:2}" >/dev/null 2>"$work/log"
  sed -n 's/^==[0-9]*== Collected : //p' "$work/log"
}

printf '%-14s %14s %14s %18s\n' build "fib(16)" "fib(20)" "per spawn"
for variant in default compiled-out observing; do
  program=$variant mode=
  if [ "$variant" = observing ]; then program=default mode=observe; fi
  i16=$(instructions "$program" 16 $mode)
  i20=$(instructions "$program" 20 $mode)
  per=$(python3 -c "print(f'{($i20 - $i16) / (10945 - 1596):.1f}')")
  printf '%-14s %14s %14s %18s\n' "$variant" "$i16" "$i20" "$per"
done
echo "(instructions of the whole process, counted by valgrind --tool=callgrind; spawns: fib(n+1) - 1)"

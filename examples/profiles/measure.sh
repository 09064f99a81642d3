#!/usr/bin/env bash
# Measures the program profiles of examples/profiles/takt-measured.yaml with `takt profile`:
# Cholesky, Heat and LU at several input sizes, as rtws §VII.A profiled them (14, 6 and 3
# sizes there, on a 32-core machine; fewer and smaller here, so that a job takes
# milliseconds to a fraction of a second on a small machine). Each entry is
#   takt profile PROGRAM ARGS... --jobs JOBS --percentile PERCENTILE --profiles FILE
# Usage (from the repository root, after `make build`):
#   examples/profiles/measure.sh [path/to/takt] [output file]
# JOBS and PERCENTILE may be set in the environment (defaults 10 and 90).
set -euo pipefail
takt=${1:-build/release/takt}
out=${2:-examples/profiles/takt-measured.yaml}
jobs=${JOBS:-10}
percentile=${PERCENTILE:-90}
rm -f "$out"
profile() {
  echo "takt profile $* --jobs $jobs --percentile $percentile --profiles $out" >&2
  "$takt" profile "$@" --jobs "$jobs" --percentile "$percentile" --profiles "$out" >/dev/null
}
for n in 256 384 512 640 768 1024; do profile cholesky "$n" 32; done
for size in "256 256 100" "512 512 50" "512 512 100" "1024 512 50" "1024 1024 50" "2048 1024 25"; do
  # shellcheck disable=SC2086
  profile heat $size
done
for n in 512 768 1024; do profile lu "$n" 32; done
echo "wrote $out" >&2

#!/usr/bin/env bash
# The nightly gate: compares the sweep just recorded in HISTORY with the sweep of the same profile
# recorded before it, judging the --fail-on RULEs, and exits non-zero on a regression or on a seed
# that went from pass to fail (3), or on bad input (2). Keep one history file for the main branch's
# nightlies (a CI cache saved only from main, see github-actions-matrix.yml), so "before it" is the
# last nightly of main. A divergence is caught earlier: the sweep's --recheck exits 4 on it.
#
#   deploy/nightly-gate.sh HISTORY PROFILE OUT [RULE]...
#   STAMPEDE=tool/bin/stampede deploy/nightly-gate.sh merged/history.sqlite seat-rush merged/compare \
#     "seat.apply_to_response.p99 > +10%" "invariants.violations > +0"
#
# It writes only OUT (compare.md and compare.html) and starts no daemon.
set -euo pipefail

if [ $# -lt 3 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 3 ] && exit 0 || exit 2
fi
stampede=${STAMPEDE:-stampede}
history=$1
profile=$2
out=$3
shift 3

if [ ! -f "$history" ]; then
  echo "nightly-gate: $history: no such history file" >&2
  exit 2
fi
# Entries are listed oldest first.
ids=$("$stampede" history --history "$history" --profile "$profile" --kind sweep --json |
  grep -o '"id" : [0-9]*' | grep -o '[0-9]*$' || true)
count=$(printf '%s\n' "$ids" | grep -c . || true)
if [ "$count" -eq 0 ]; then
  echo "nightly-gate: $history holds no sweep of profile '$profile'" >&2
  exit 2
fi
last=$(printf '%s\n' "$ids" | tail -n 1)
if [ "$count" -eq 1 ]; then
  echo "nightly-gate: sweep #$last is the first of '$profile' in $history: nothing to compare it with yet"
  exit 0
fi
previous=$(printf '%s\n' "$ids" | tail -n 2 | head -n 1)
rules=()
for rule in "$@"; do rules+=(--fail-on "$rule"); done
echo "nightly-gate: comparing sweep #$last of '$profile' with #$previous"
exec "$stampede" compare "history:$previous" "history:$last" --history "$history" --out "$out" "${rules[@]}"

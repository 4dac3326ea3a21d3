#!/usr/bin/env bash
# Submits the nightly sweep (deploy/slurm-array.sh, seeds 1..10000 over 20 array tasks) and a
# merge job that starts only when every task has ended well (--dependency=afterok): a task ends
# well when its shard ran, whatever the seeds found; findings are for the merge to judge.
#   deploy/slurm-submit.sh [SEEDS] [OUT]      e.g. deploy/slurm-submit.sh 1..200 reports/check
# Prints the merge job's ID; its exit code is the merged sweep's (0 pass, 1 invariant, 3 threshold,
# 2 a shard missing).
set -euo pipefail
seeds="${1:-1..10000}"
out="${2:-reports/nightly}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
array=$(sbatch --parsable --export=ALL,STAMPEDE_SEEDS="$seeds",STAMPEDE_OUT="$out" --output="${out}/slurm-%A_%a.out" \
  "$here/slurm-array.sh")
array="${array%%;*}"
merge=$(sbatch --parsable --dependency="afterok:${array}" --job-name=stampede-merge \
  --output="${out}/merge-%j.out" \
  --wrap="stampede merge ${out}/shard-*/summary.json --out ${out}/merged/summary.json --history ${out}/history.sqlite")
echo "${merge%%;*}"

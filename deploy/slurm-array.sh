#!/usr/bin/env bash
# Seeds 1..10000 over a Slurm job array of 20 tasks; `--shard auto` reads SLURM_ARRAY_TASK_ID,
# SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN, so the array may start at 0 or 1; with 1-20 the
# task IDs are the shard numbers (shard-1 .. shard-20), as with --shard K/N.
# Submit it with its merge job: deploy/slurm-submit.sh (the merge runs after every task, afterok).
# STAMPEDE_SEEDS and STAMPEDE_OUT (exported by slurm-submit.sh) change the seeds and the folder.
#SBATCH --job-name=stampede-nightly
#SBATCH --array=1-20
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
set -uo pipefail
stampede sweep profiles/seat-rush.json5 --seeds "${STAMPEDE_SEEDS:-1..10000}" --shard auto \
  --jobs "${SLURM_CPUS_PER_TASK:-2}" --quiet --out "${STAMPEDE_OUT:-reports/nightly}/shard-${SLURM_ARRAY_TASK_ID}"
status=$?
# 1 (invariant) and 3 (threshold) are findings recorded in the summary, not job failures.
[ "$status" -le 3 ] && [ "$status" -ne 2 ]

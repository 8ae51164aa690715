#!/usr/bin/env bash
# slurm-setup.sh: called by .ci/run before `go test`. Installs Debian's slurm-wlm and munge when
# missing and starts a one-node local cluster (scripts/slurm-up.sh), so the matrix integration
# tests (TestMatrixSlurm* in the main package) run against a real sbatch. With CI set those tests
# fail, not skip, when Slurm is not up, so a failure here is fatal.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v sbatch >/dev/null 2>&1 || ! command -v slurmctld >/dev/null 2>&1 \
  || ! command -v slurmd >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
bash scripts/slurm-up.sh


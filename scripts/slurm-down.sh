#!/usr/bin/env bash
# slurm-down.sh: stop the one-node cluster that slurm-up.sh started (slurmd, slurmctld, munged),
# each by its own pid file, and wait (bounded) until they are gone. Safe to run twice.
# Running jobs are killed with the node; job state under /var/spool is kept for the next start.
set -euo pipefail

timeout_s=${SLURM_DOWN_TIMEOUT:-30}
deadline=$((SECONDS + timeout_s))

stop() {
  local name=$1 pidfile=$2 pid
  if [ ! -s "$pidfile" ] || ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "slurm-down: $name not running"
    return 0
  fi
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "slurm-down: $name (pid $pid) ignored SIGTERM; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  echo "slurm-down: stopped $name (pid $pid)"
}

[ "$(id -u)" -eq 0 ] || { echo "slurm-down: must run as root" >&2; exit 1; }
stop slurmd /run/slurmd.pid
stop slurmctld /run/slurmctld.pid
stop munged /run/munge/munged.pid

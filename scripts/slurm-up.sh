#!/usr/bin/env bash
# slurm-up.sh: start a one-node Slurm cluster on this machine (munged, slurmctld, slurmd) so that
# `kvparity matrix --slurm` and its integration test run against a real scheduler.
#
# Idempotent: daemons already running (by their pid files) are left alone, the config is
# rewritten only when it would change. Bounded: gives up after SLURM_UP_TIMEOUT seconds (60).
# Needs root and Debian's slurm-wlm + munge packages (see .ci/slurm-setup.sh, docs/slurm.md).
# Works without systemd and without cgroups (containers, gVisor): proctrack/linuxproc follows a
# job's process tree through /proc, task/none leaves CPU binding to kvparity itself.
set -euo pipefail

timeout_s=${SLURM_UP_TIMEOUT:-60}
conf_dir=/etc/slurm
conf=$conf_dir/slurm.conf
node=$(hostname -s)
log_dir=/var/log/slurm
deadline=$((SECONDS + timeout_s))

say() { echo "slurm-up: $*"; }
die() { echo "slurm-up: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"
for b in munged slurmctld slurmd sinfo srun scontrol; do
  command -v "$b" >/dev/null 2>&1 || die "$b not found: apt-get install -y slurm-wlm munge"
done

# alive PIDFILE NAME: the pid file names a running (not zombie) process called NAME. A pid file
# left behind by a killed daemon, or naming a reused pid, does not count: after a session ends
# its daemons are killed without cleaning up, and CI then starts on the same machine.
alive() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(cat "$1")
  [ -r "/proc/$pid/stat" ] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 1
  # Field 3 of /proc/PID/stat is the state; Z (zombie) and X (dead) are not running.
  case "$(sed -e 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f1)" in Z|X) return 1 ;; esac
}

# wait_for DESCRIPTION COMMAND...: poll until COMMAND succeeds or the deadline passes.
wait_for() {
  local what=$1; shift
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then die "timed out after ${timeout_s}s waiting for $what"; fi
    sleep 0.5
  done
}

# --- munge -----------------------------------------------------------------------------------
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  say "creating munge key"
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
if alive /run/munge/munged.pid munged; then
  say "munged already running (pid $(cat /run/munge/munged.pid))"
else
  rm -f /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock /run/munge/munged.pid
  runuser -u munge -- /usr/sbin/munged
  say "started munged"
fi
munge_ok() { munge -n | unmunge; }
wait_for "munged to answer" munge_ok

# --- slurm.conf ------------------------------------------------------------------------------
# The node line comes from slurmd -C so CPUs, sockets and RealMemory are the machine's own;
# a RealMemory above what slurmd measures would drain the node.
node_line=$(slurmd -C | head -n 1)
[[ $node_line == NodeName=* ]] || die "slurmd -C printed no NodeName line: $node_line"
node_line="NodeName=$node ${node_line#NodeName=* }"
new_conf=$(cat <<CONF
# Written by kvparity scripts/slurm-up.sh: a one-node local cluster for tests and desk use.
ClusterName=kvparity
SlurmctldHost=$node
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$log_dir/slurmctld.log
SlurmdLogFile=$log_dir/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=5
InactiveLimit=0
# No slurmdbd here, so sacct has nothing: kvparity falls back to squeue/scontrol, and
# finished jobs stay visible to scontrol for an hour.
MinJobAge=3600
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$log_dir/jobcomp.log
$node_line State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
)
install -d -m 0755 "$conf_dir" "$log_dir" /var/spool/slurmctld /var/spool/slurmd
conf_changed=0
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$new_conf" ]; then
  printf '%s\n' "$new_conf" > "$conf.tmp" && mv "$conf.tmp" "$conf"
  conf_changed=1
  say "wrote $conf"
fi

# --- daemons ---------------------------------------------------------------------------------
fresh_ctld=0
if alive /run/slurmctld.pid slurmctld; then
  if [ "$conf_changed" -eq 1 ]; then scontrol reconfigure || true; fi
  say "slurmctld already running (pid $(cat /run/slurmctld.pid))"
else
  /usr/sbin/slurmctld
  fresh_ctld=1
  say "started slurmctld"
fi
wait_for "slurmctld to answer" scontrol ping
if [ "$fresh_ctld" -eq 1 ]; then
  # Jobs recovered from the saved state belong to a cluster that was stopped with its processes
  # (a reboot, the end of a session): they would hold the only node, so they are cancelled.
  stale=$(squeue -h -o %i | tr '\n' ' ')
  if [ -n "${stale// /}" ]; then
    say "cancelling jobs left from before the restart: $stale"
    # shellcheck disable=SC2086 # one job id per word
    scancel $stale || true
  fi
fi
if alive /run/slurmd.pid slurmd; then
  say "slurmd already running (pid $(cat /run/slurmd.pid))"
else
  /usr/sbin/slurmd
  say "started slurmd"
fi

# A node left down or drained by an earlier run (killed slurmd, reboot) is resumed.
node_state() { sinfo -h -n "$node" -o %t 2>/dev/null | head -n 1; }
node_ready() { case "$(node_state)" in idle|mix|alloc|comp) return 0 ;; *) return 1 ;; esac; }
for _ in 1 2 3 4 5 6; do
  node_ready && break
  case "$(node_state)" in
    down*|drain*|drng*|fail*) scontrol update NodeName="$node" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  sleep 0.5
done
wait_for "node $node to be idle (sinfo state: $(node_state))" node_ready

if [ "$(node_state)" = idle ]; then
  left=$((deadline - SECONDS)); [ "$left" -gt 5 ] || left=5
  got=$(timeout "$left" srun -N1 -n1 hostname) || die "srun hostname failed (see $log_dir/slurmd.log)"
  [ "$got" = "$(hostname)" ] || [ "$got" = "$node" ] || die "srun hostname printed '$got'"
else
  say "node $node is running jobs: the srun check is skipped (it would wait for them)"
fi
say "ready: node $node $(sinfo -h -n "$node" -o '%t cpus=%c mem=%m')"

#!/bin/sh
# local-cluster.sh — a single-node Slurm cluster on this machine, to try the
# recipes (and for CI): Debian's slurm-wlm and munge, configured here.
#
#   sudo contrib/slurm/local-cluster.sh start    # munged, slurmctld, slurmd
#   sudo contrib/slurm/local-cluster.sh stop
#
# Needs root (it writes /etc/slurm/slurm.conf and starts daemons) and
# 'apt install slurm-wlm munge'.  The node is this host with its processors
# and memory; the partition 'deja' is the default.  Not for a real cluster:
# there, use your site's Slurm and submit.sh.
set -eu
conf=/etc/slurm/slurm.conf
state=/var/lib/slurm-deja

start() {
  command -v slurmctld >/dev/null || { echo "$0: apt install slurm-wlm munge" >&2; exit 2; }
  mkdir -p /etc/slurm /etc/munge /run/munge /var/log/munge /var/lib/munge "$state/ctld" "$state/d"
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
  fi
  chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  chmod 0400 /etc/munge/munge.key
  chmod 0700 /etc/munge
  pgrep -x munged >/dev/null || su -s /bin/sh munge -c munged 2>/dev/null || munged --force
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
  cat > "$conf" <<CONF
# written by deja's contrib/slurm/local-cluster.sh
ClusterName=deja
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=deja Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  pgrep -x slurmctld >/dev/null || slurmctld -i
  pgrep -x slurmd >/dev/null || slurmd
  for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -q idle; then
      sinfo
      return 0
    fi
    sleep 0.5
  done
  echo "$0: the node did not become idle; see $state/*.log" >&2
  sinfo >&2 || true
  exit 1
}

stop() {
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
  pkill -x munged 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

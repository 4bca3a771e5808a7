#!/bin/bash
# Stops the slurmd and slurmctld that scripts/slurm-up.sh started, through
# their pid files under $S (default /tmp/slurm). munged is left running.
S=${S:-/tmp/slurm}
for p in slurmd slurmctld; do
  f=$S/$p.pid; [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
done
for i in $(seq 1 60); do
  alive=0
  for p in slurmd slurmctld; do
    f=$S/$p.pid; [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1
  done
  [ $alive = 0 ] && exit 0; sleep 0.25
done
echo "still alive after 15 s" >&2; exit 1

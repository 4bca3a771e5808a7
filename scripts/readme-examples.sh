#!/usr/bin/env bash
# Runs README.md as a new user would, on a fresh clone of this repository
# (its committed HEAD): the two set-up commands at the top, then every
# example of README.md's indented command blocks that needs no GPU, as
# typed, from the clone's root. Fails on any non-zero exit.
#
#   scripts/readme-examples.sh [--skip-test] [--as USER] [--keep]
#
#   --skip-test  run `scripts/setup.sh && make demo` but not
#                `scripts/setup.sh && make test` (CI has just run make test)
#   --as USER    (root only) run it all as USER, a non-root account created
#                with useradd where missing
#   --keep       keep the clone (printed) instead of removing it
#
# After set-up, PATH gets the line scripts/setup.sh prints for the folder
# `make install` fills (${PREFIX:-$HOME/.local}/bin). The examples run with
# HOME set to a scratch folder, so `rooftool new ... -o ~/exp` writes there.
# Examples that need a GPU, a Slurm cluster or the outputs of one are
# skipped and listed with the reason.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "readme-examples: $*"; }

skip_test=0 as_user="" keep=0 in_place=0
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-test) skip_test=1 ;;
    --as) as_user="$2"; shift ;;
    --keep) keep=1 ;;
    --in-place) in_place=1 ;; # internal: run in this checkout (the fresh clone)
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "readme-examples: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
flags=(); [ "$skip_test" = 1 ] && flags+=(--skip-test)

if [ "$in_place" = 0 ]; then
  if [ -n "$as_user" ]; then
    [ "$(id -u)" = 0 ] || { say "--as needs root"; exit 2; }
    [ "$as_user" != root ] || { say "--as wants a non-root user"; exit 2; }
    if ! id "$as_user" >/dev/null 2>&1; then
      say "creating user $as_user (useradd -m)"
      useradd -m -s /bin/bash "$as_user"
    fi
  fi
  dir=$(mktemp -d /tmp/rooftool-readme.XXXXXX)
  say "cloning $repo (HEAD $(git -C "$repo" rev-parse --short HEAD)) into $dir/rooftool"
  git clone -q "$repo" "$dir/rooftool"
  rc=0
  if [ -n "$as_user" ]; then
    chown -R "$as_user:" "$dir"
    # A login shell: the user's own PATH and HOME, nothing of root's.
    runuser -l "$as_user" -c "cd '$dir/rooftool' && scripts/readme-examples.sh --in-place ${flags[*]:-}" || rc=$?
  else
    (cd "$dir/rooftool" && scripts/readme-examples.sh --in-place "${flags[@]}") || rc=$?
  fi
  if [ "$keep" = 1 ]; then say "kept $dir/rooftool"; else rm -rf "$dir"; fi
  exit "$rc"
fi

# --- in the fresh clone -----------------------------------------------------
[ "$(id -u)" != 0 ] || say "note: running as root (--as USER runs it as a non-root user)"
step() { # the command as typed, timed
  say "\$ $1"
  local t0=$SECONDS
  bash -c "$1"
  say "ok in $((SECONDS - t0)) s: $1"
}
step 'scripts/setup.sh && make demo'
if [ "$skip_test" = 0 ]; then step 'scripts/setup.sh && make test'; fi
export PATH="${PREFIX:-$HOME/.local}/bin:$PATH"
command -v rooftool >/dev/null || { say "rooftool is not on PATH after set-up"; exit 1; }

# The README's indented command lines (continuations joined, comments cut).
mapfile -t examples < <(awk '
  /^    [^ ]/ {
    line = substr($0, 5)
    while (line ~ /\\$/ && (getline nxt) > 0) { sub(/\\$/, "", line); sub(/^ +/, " ", nxt); line = line nxt }
    sub(/[ \t]+#[ \t].*$/, "", line)
    if (line ~ /^(rooftool|bin\/rooftool|make|scripts\/) ?/) print line
  }' README.md)
[ ${#examples[@]} -gt 0 ] || { say "no example found in README.md"; exit 1; }

# why_skip prints why an example is not run here, or nothing.
why_skip() {
  case "$1" in
    scripts/setup.sh*) echo "a set-up command, run above" ;;
    "make build | "*) echo "a list of make targets, not one command" ;;
    "make gpu-check"*) echo "needs a GPU" ;;
    "make wheel"*|"make dist"*) echo "a release build: .ci/run runs make wheel-test and make dist" ;;
    *rooftool\ profile*|*rooftool\ ceilings*) echo "needs a GPU" ;;
    *rooftool\ doctor*) echo "exits 1 on a machine that lacks what profiling needs (a GPU, ncu, nsys)" ;;
    *rooftool\ merge*) echo "merges the parts profile --shard writes on a GPU" ;;
    *rooftool\ slurm*) echo "submits to a Slurm cluster" ;;
    *" app.sqlite"*|*" app.ncu.csv"*) echo "reads the exports the nsys and ncu lines before it make on a GPU" ;;
  esac
}

# The scratch HOME keeps Go's build and module caches of the real one, so
# `make build` stays a cached build.
for g in "$(command -v go 2>/dev/null || true)" "$HOME/.local/go/bin/go" /usr/local/go/bin/go; do
  if [ -n "$g" ] && [ -x "$g" ]; then
    export GOCACHE="${GOCACHE:-$("$g" env GOCACHE)}" GOMODCACHE="${GOMODCACHE:-$("$g" env GOMODCACHE)}"
    break
  fi
done
home=$(mktemp -d)
ran=0 failed=() skipped=()
for ex in "${examples[@]}"; do
  why=$(why_skip "$ex")
  if [ -n "$why" ]; then skipped+=("$ex  ($why)"); continue; fi
  ran=$((ran + 1))
  say "\$ $ex"
  if HOME="$home" bash -c "$ex" >"$home/.out" 2>&1; then
    say "ok: $(wc -l <"$home/.out") line(s) of output"
  else
    rc=$?
    say "FAILED (exit $rc): $ex"; tail -n 20 "$home/.out" | sed 's/^/    /'
    failed+=("$ex  (exit $rc)")
  fi
done
rm -rf "$home"
say "ran $ran example(s) of README.md; skipped ${#skipped[@]}:"
for s in "${skipped[@]}"; do echo "    $s"; done
if [ ${#failed[@]} -gt 0 ]; then
  say "${#failed[@]} failed:"
  for f in "${failed[@]}"; do echo "    $f"; done
  exit 1
fi
say "all passed"

# cairn's frequent hooks in bash: hand the payload to the warm server without starting Python.
#
# usage: bash .../cairn/agents/hooks/hook.sh PYTHON EVENT   (stdin: the hook's JSON payload)
# EVENT: UserPromptSubmit, PreToolUse, PostToolUse or Stop, the events the warm server answers.
#
# Every prompt, tool call and turn pays its hooks' start-up before any work: ~10-17 ms for the
# smallest Python client (client.py), ~2 ms for bash. So the installed hooks of those events are
# this script: it reads the warm server's door (CAIRN_HOME/run/hooks.tcp, 0600: port, token, pid,
# key; see cairn/warm/door.py), sends the payload over 127.0.0.1 with bash's own /dev/tcp and prints the
# answer. Shell builtins only: no process is started on the way. Anything missing or wrong (no
# server, no door, CAIRN_WARM=0, an odd CAIRN_HOME or working directory, a refused, silent or
# foreign answer) and it runs the Python client exactly as before, with what it read of stdin.

# The commands cairn installs start bash -p (no BASH_ENV, SHELLOPTS or exported functions); an older
# install's may not: whatever options were inherited, this script runs with bash's defaults.
{ set +eux +o pipefail +o posix; } 2>/dev/null  # braces: not even this line is traced
trap '' PIPE  # a server that closes while the payload is sent: a failed printf (then Python), not death
more= lc_all=${LC_ALL-} lc_set=${LC_ALL+1}  # the user's, given back to the Python client
LC_ALL=C  # string lengths and offsets in bytes
py=$1
event=$2
here=${BASH_SOURCE[0]%/*}
root=${here%/cairn/agents/hooks}  # the folder that holds `cairn`

# The Python client, with what was read of stdin; `inline`: answer in that process (the server
# did not take the request in time: asking it again would only wait longer).
fallback() {
  exec 3>&-  # a request the server has not taken yet: it finds its client gone and leaves it
  trap - PIPE
  if [ -n "$lc_set" ]; then LC_ALL=$lc_all; else unset LC_ALL; fi
  [ "$1" = inline ] && CAIRN_WARM=0 && export CAIRN_WARM
  CAIRN_SRC=$root
  export CAIRN_SRC
  boot='import os, sys; sys.path[0] = os.environ.pop("CAIRN_SRC"); from cairn.agents.hooks.client import main; sys.exit(main())'
  if [ -n "$more" ]; then  # the rest of a big payload is still on stdin
    { printf '%s' "$payload"; cat 2>/dev/null; } | "$py" -S -c "$boot" hook "$event"
    exit $?
  fi
  if [ -n "${payload+x}" ]; then
    printf '%s' "$payload" | "$py" -S -c "$boot" hook "$event"
    exit $?
  fi
  exec "$py" -S -c "$boot" hook "$event"
}

case $event in UserPromptSubmit | PreToolUse | PostToolUse | Stop) ;; *) fallback ;; esac  # warm/hook_client.EVENTS
case ${CAIRN_WARM:-1} in 0 | false | no | off) fallback ;; esac
home=${CAIRN_HOME:-$HOME/.cairn}
case $home in /*) ;; *) fallback ;; esac  # relative or ~: the Python client resolves it
case $PWD$root${CLAUDE_PROJECT_DIR-} in *$'\n'*) fallback ;; esac
door=$home/run/hooks.tcp
[ -r "$door" ] || fallback
IFS=' ' read -r port token pid key <"$door" || fallback
case $port$pid in '' | *[!0-9]*) fallback ;; esac
[ -n "$key" ] || fallback  # an older server's door
kill -0 "$pid" 2>/dev/null || fallback
[ -t 0 ] && fallback  # a terminal: the Python client reads nothing from it
if [ -S /dev/stdin ]; then  # Claude Code (node) hands a socket: /dev/stdin cannot be opened, read it
  # A byte per call (~0.7 us each: 1 MB, 0.7 s): past 32 KB (a tool's output) the Python client,
  # which reads in blocks, is the faster; it gets what was read, then the rest.
  IFS= read -r -d '' -n 32768 payload
  [ "${#payload}" -lt 32768 ] || { more=1; fallback; }
else  # a pipe or a file: in one go (read takes a byte at a time)
  { payload=$(</dev/stdin); } 2>/dev/null
fi
[ -n "$payload" ] || fallback
# Within the hook's time (install.HOOK_EVENTS: 10 s prompt and Stop, 5 s tool hooks): `ack` for the
# server to take the request (else the Python client answers inline, within its handler's limit,
# runner.TIME_LIMITS), `wait` for its answer once taken: that limit and 1 s. Whole seconds (bash 3.2).
case $event in UserPromptSubmit) t_ack=3 t_answer=5 ;; Stop) t_ack=3 t_answer=4 ;; *) t_ack=1 t_answer=3 ;; esac
{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || fallback
printf 'cairn-hook-sh/2\n%s\n%s\n%s\n%s\n%s\n%s\n' "$token" "$root" "$event" "$PWD" \
  "${CLAUDE_PROJECT_DIR+=}${CLAUDE_PROJECT_DIR-}" "${#payload}" >&3 2>/dev/null || fallback
t0=$SECONDS
IFS= read -r -t "$t_ack" ack <&3 2>/dev/null || {  # timed out (bash 3.2 says 1, not >128): busy or hung
  [ $? -gt 128 ] || [ $((SECONDS - t0)) -ge "$t_ack" ] && fallback inline
}
# the payload only to the server that wrote the door: on a dead one's port, whoever listens there
# now has the token, not the key
[ "$ack" = "ok $key" ] || fallback  # refused, or told to fall back (a server of older code)
printf '%s' "$payload" >&3 2>/dev/null || fallback  # it died: it has not run anything
# Taken: the server runs the handler, so nothing runs it again; no answer in time, a broken one or
# none at all (the server died), and the hook says nothing, exit 0.
IFS= read -r -t "$t_answer" code <&3 2>/dev/null && IFS= read -r -t "$t_answer" size <&3 2>/dev/null || exit 0
case $code in fallback) fallback ;; esac  # the server declined after all (an event it does not answer)
case $code$size in '' | *[!0-9]*) exit 0 ;; esac
IFS= read -r -d '' -t "$t_answer" rest <&3 2>/dev/null
exec 3>&-
[ "${#rest}" -ge "$size" ] || exit 0  # cut short
printf '%s' "${rest:0:size}" 2>/dev/null  # the agent may have stopped listening: not a word about it
[ -n "${rest:size}" ] && printf '%s' "${rest:size}" >&2 2>/dev/null
exit "$code"

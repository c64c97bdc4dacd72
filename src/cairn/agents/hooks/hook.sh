# cairn's prompt hook in bash: hand the prompt to the warm server without starting Python.
#
# usage: bash .../cairn/agents/hooks/hook.sh PYTHON EVENT   (stdin: the hook's JSON payload)
#
# Every prompt pays its hook's start-up before any work: ~10-17 ms for the smallest Python client
# (client.py), ~2 ms for bash. So the installed prompt hook is this script: it reads the warm
# server's door (CAIRN_HOME/run/hooks.tcp, 0600: port, token, pid; see warm_door.py), sends the
# payload over 127.0.0.1 with bash's own /dev/tcp and prints the answer. Shell builtins only:
# no process is started on the way. Anything missing or wrong (no server, no door, CAIRN_WARM=0,
# an odd CAIRN_HOME or working directory, a refused, silent or foreign answer) and it runs the
# Python client exactly as before, with what it read of stdin.

LC_ALL=C  # string lengths and offsets in bytes
py=$1
event=$2
here=${BASH_SOURCE[0]%/*}
root=${here%/cairn/agents/hooks}  # the folder that holds `cairn`

fallback() {
  CAIRN_SRC=$root
  export CAIRN_SRC
  boot='import os, sys; sys.path[0] = os.environ.pop("CAIRN_SRC"); from cairn.agents.hooks.client import main; sys.exit(main())'
  if [ -n "${payload+x}" ]; then
    printf '%s' "$payload" | "$py" -S -c "$boot" hook "$event"
    exit $?
  fi
  exec "$py" -S -c "$boot" hook "$event"
}

[ "$event" = UserPromptSubmit ] || fallback
case ${CAIRN_WARM:-1} in 0 | false | no | off) fallback ;; esac
home=${CAIRN_HOME:-$HOME/.cairn}
case $home in /*) ;; *) fallback ;; esac  # relative or ~: the Python client resolves it
case $PWD$root${CLAUDE_PROJECT_DIR-} in *$'\n'*) fallback ;; esac
door=$home/run/hooks.tcp
[ -r "$door" ] || fallback
IFS=' ' read -r port token pid <"$door" || fallback
case $port$pid in '' | *[!0-9]*) fallback ;; esac
kill -0 "$pid" 2>/dev/null || fallback
if [ -S /dev/stdin ]; then  # Claude Code (node) hands a socket: /dev/stdin cannot be opened, read it
  IFS= read -r -d '' payload
else  # a pipe or a file: in one go (read takes a byte at a time)
  payload=$(</dev/stdin)
fi
[ -n "$payload" ] || fallback
{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || fallback
printf 'cairn-hook-sh/1\n%s\n%s\n%s\n%s\n%s\n%s\n%s' "$token" "$root" "$event" "$PWD" \
  "${CLAUDE_PROJECT_DIR+=}${CLAUDE_PROJECT_DIR-}" "${#payload}" "$payload" >&3 2>/dev/null || fallback
IFS= read -r -t 3 ack <&3 && [ "$ack" = ok ] || fallback
IFS= read -r -t 8 code <&3 && IFS= read -r -t 8 size <&3 || fallback
case $code$size in '' | *[!0-9]*) fallback ;; esac
IFS= read -r -d '' -t 8 rest <&3
[ $? -gt 128 ] && fallback
exec 3>&-
printf '%s' "${rest:0:size}"
[ -n "${rest:size}" ] && printf '%s' "${rest:size}" >&2
exit "$code"

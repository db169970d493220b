# The namespace box's outer shell (run by unshare; its children go to the new PID namespace;
# arguments: SETPRIV INNER-SCRIPT COMMAND...).  It hands the bot's pipes over as fds 3-5, keeps
# none itself, starts the inner shell (which dies with this one) and waits for it.
sp=$1 inner=$2
shift 2
exec 3<&0 4>&1 5>&2 </dev/null >/dev/null 2>/dev/null
trap : TERM
"$sp" --pdeathsig KILL /bin/sh -c "$inner" bot "$sp" "$@" &
exec 3<&- 4>&- 5>&-
while :; do
  wait $!
  s=$?
  kill -0 $! 2>/dev/null || exit $s
done

# The namespace box's first process (arguments: SETPRIV COMMAND...).  It mounts a /proc of the
# namespace's own, a size-capped tmpfs on /tmp (CANASTA_DISK, staged at CANASTA_STAGE, with
# the folders of CANASTA_KEEP read-only and CANASTA_KEEP_RW writable in it), a fresh devpts,
# makes the bot's own folders read-only (CANASTA_RO) and lays empty read-only file systems over
# the folders the referee hides (CANASTA_HIDE); each list holds one path per line.  Its own
# commands come from the system's folders (the bot's PATH may lead into the /tmp it replaces);
# the bot gets its PATH back, its pipes back as 0-2, and no capability (so it cannot undo the
# mounts).
sp=$1
shift
bp=$PATH
PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc || exit 125
if [ -n "$CANASTA_DISK" ]; then
  st=$CANASTA_STAGE
  mount -t tmpfs -o "size=$CANASTA_DISK,mode=1777" none "$st" || exit 125
  IFS='
'
  for d in $CANASTA_KEEP; do
    t="$st${d#/tmp}"
    mkdir -p "$t" && mount --bind "$d" "$t" && mount -o remount,bind,ro "$t" || exit 125
  done
  for d in $CANASTA_KEEP_RW; do
    t="$st${d#/tmp}"
    mkdir -p "$t" && mount --bind "$d" "$t" || exit 125
  done
  unset IFS
  mount --move "$st" /tmp || exit 125
  if [ -d /dev/pts ]; then
    mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts || exit 125
  fi
  cd /tmp || exit 125
fi
IFS='
'
for d in $CANASTA_RO; do
  mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" || exit 125
done
for d in $CANASTA_HIDE; do
  if [ -d "$d" ]; then
    mount -t tmpfs -o size=4k,mode=0500,ro none "$d" || exit 125
  fi
done
unset IFS CANASTA_HIDE CANASTA_DISK CANASTA_RO CANASTA_KEEP CANASTA_KEEP_RW CANASTA_STAGE
PATH=$bp
"$sp" --bounding-set=-all --inh-caps=-all -- "$@" <&3 >&4 2>&5 3<&- 4>&- 5>&- &
exec 3<&- 4>&- 5>&-
wait $!

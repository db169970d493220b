# Inside bubblewrap's box: the bot gets its input and output back from fds 3 and 4 (enter.sh).
exec <&3 >&4 3<&- 4>&-
exec "$@"

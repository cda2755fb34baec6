# agentty remote helper: one per SSH connection, on its own channel.
# Reads one request per line on stdin and answers one line on stdout.
#   P ROOT             is ROOT's input group blocked reading its input?
#                      -> STATE SCHEDSUM MEMBERS PGID DETAIL
#   F ROOT             the same without the terminal-mode check (no fork):
#                      a password prompt reads as awaiting_input
#   S SIG PGID         signal a process group -> ok | err ...
#   K SIG SID MARKER   signal every process of session SID or carrying
#                      AGENTTY_SESSION=MARKER -> ok COUNT; unless SIG is
#                      KILL, then SIGCONT (stopped ones), and SIGHUP and
#                      SIGCONT to SID if it ignores SIGTERM (as an
#                      interactive shell does: its terminal's hang-up)
#   C SID MARKER       count those processes -> ok COUNT
# It only reads /proc and sends signals; it never polls on its own.
exec 2>/dev/null
OS=$(uname -s)
ARCH=$(uname -m)
echo "agentty-helper $OS $ARCH"
[ "$OS" = Linux ] || exit 0
case $ARCH in
x86_64) RD="0 19 17 295"; SEL="23 270"; POL="7 271"; EPW="232 281 441"; WT="61 247"; FX="202" ;;
aarch64|arm64) RD="63 65 67 69"; SEL="72"; POL="73"; EPW="22 441"; WT="260 95"; FX="98" ;;
*) RD=; SEL=; POL=; EPW=; WT=; FX= ;;
esac

inlist() {
	for x in $2; do [ "$x" = "$1" ] && return 0; done
	return 1
}

# isin DIR FD: is fd FD of process DIR the session's input?
isin() {
	[ "$1/fd/$2" -ef "$IN" ] && return 0
	[ "$PTY" = 1 ] && [ "$1/fd/$2" -ef /dev/tty ] && return 0
	return 1
}

# below DIR NFDS: the input is open as a descriptor under NFDS (sets FD).
below() {
	for f in "$1"/fd/*; do
		n=${f##*/}
		[ "$n" -lt "$2" ] && isin "$1" "$n" && { FD=$n; return 0; }
	done
	return 1
}

# epin DIR EPFD: the epoll instance EPFD watches the input (sets FD).
epin() {
	while read -r k v rest; do
		[ "$k" = tfd: ] && isin "$1" "$v" && { FD=$v; return 0; }
	done <"$1/fdinfo/$2"
	return 1
}

# members ROOT: MEMBERS = ROOT and its descendants (the input group is
# among them), from the kernel's children lists; every process when the
# kernel does not keep those lists.
members() {
	if [ ! -r "/proc/$1/task/$1/children" ]; then
		MEMBERS=
		for D in /proc/[0-9]*; do MEMBERS="$MEMBERS ${D#/proc/}"; done
		return
	fi
	MEMBERS=$1
	Q=$1
	while [ -n "$Q" ]; do
		NQ=
		for P in $Q; do
			for F in /proc/$P/task/*/children; do
				K=
				read -r K <"$F" # no trailing newline: read fails but sets K
				NQ="$NQ $K"
			done
		done
		MEMBERS="$MEMBERS $NQ"
		Q=$NQ
	done
}

probe() {
	R=$1
	if ! read -r L <"/proc/$R/stat"; then
		echo "running 0 0 0 root process $R has exited"
		return
	fi
	S=${L##*) }
	set -- $S
	PG=$3
	PTY=0
	if [ "$6" -gt 0 ]; then PG=$6; PTY=1; fi
	IN=/proc/$R/fd/0
	if [ ! -e "$IN" ]; then
		echo "running 0 0 $PG stdin of pid $R is closed"
		return
	fi
	members "$R"
	SUM=0 N=0 BUSY= READER=
	for P in $MEMBERS; do
		D=/proc/$P
		read -r L <"$D/stat" || continue
		S=${L##*) }
		set -- $S
		[ "$3" = "$PG" ] || continue
		N=$((N + 1))
		C=${L#*(}
		C=${C%)*}
		for T in "$D"/task/[0-9]*; do
			# Times the thread ran: schedstat, or context switches where the
			# kernel keeps no schedstat.
			if read -r a b c <"$T/schedstat"; then
				SUM=$((SUM + c))
			else
				while read -r k v; do
					case $k in *ctxt_switches:) SUM=$((SUM + v)) ;; esac
				done <"$T/status"
			fi
			[ -n "$BUSY" ] && continue
			read -r L <"$T/stat" || continue
			S=${L##*) }
			case ${S%% *} in
			R) BUSY="pid $P ($C) is running"; continue ;;
			D) BUSY="pid $P ($C) is in uninterruptible sleep"; continue ;;
			S) ;;
			*) continue ;;
			esac
			read -r L <"$T/syscall" || continue
			set -- $L
			if [ "$1" = running ]; then BUSY="pid $P ($C) is running"; continue; fi
			NR=$1
			if inlist "$NR" "$RD"; then
				FD=$(($2))
				if isin "$D" "$FD"; then READER="pid $P ($C) in read on fd $FD"
				elif [ -p "$D/fd/$FD" ]; then :
				else BUSY="pid $P ($C) is blocked reading fd $FD, not the input"; fi
			elif inlist "$NR" "$SEL"; then
				if below "$D" $(($2)); then READER="pid $P ($C) in select on fd $FD"
				else BUSY="pid $P ($C) is blocked in select, not on the input"; fi
			elif inlist "$NR" "$POL"; then
				if below "$D" 1048576; then READER="pid $P ($C) in poll with the input open as fd $FD"
				else BUSY="pid $P ($C) is blocked in poll, not on the input"; fi
			elif inlist "$NR" "$EPW"; then
				if epin "$D" $(($2)); then READER="pid $P ($C) in epoll_wait on fd $FD"
				else BUSY="pid $P ($C) is blocked in epoll_wait, not on the input"; fi
			elif inlist "$NR" "$WT" || inlist "$NR" "$FX"; then :
			else BUSY="pid $P ($C) is blocked in syscall $NR, not on the input"; fi
		done
	done
	FP="$SUM $N $PG"
	if [ -n "$BUSY" ]; then echo "running $FP $BUSY"; return; fi
	if [ "$N" -eq 0 ]; then echo "running $FP no live process in process group $PG"; return; fi
	if [ -z "$READER" ]; then echo "running $FP nothing in process group $PG reads the input"; return; fi
	STATE=awaiting_input
	if [ "$PTY" = 1 ] && [ "$2" != fast ]; then
		# stty -g prints iflag:oflag:cflag:lflag:... in hex; ECHO is 0x8,
		# ICANON 0x2 in lflag. Echo off in canonical mode reads a secret.
		G=$(stty -g <"$IN")
		LF=${G#*:}
		LF=${LF#*:}
		LF=${LF#*:}
		LF=0x${LF%%:*}
		if [ $((LF & 8)) = 0 ] && [ $((LF & 2)) != 0 ]; then
			STATE=awaiting_password
			READER="$READER; echo off"
		fi
	fi
	echo "$STATE $FP $READER"
}

# ignterm PID: does PID ignore SIGTERM (bit 14 of SigIgn)?
ignterm() {
	while read -r k v; do
		[ "$k" = SigIgn: ] && [ $((0x$v >> 14 & 1)) = 1 ] && return 0
	done <"/proc/$1/status"
	return 1
}

# tree SID MARKER: PIDS = live processes of session SID or with the marker.
tree() {
	SID=$1 MK=$2 PIDS=
	for D in /proc/[0-9]*; do
		read -r L <"$D/stat" || continue
		S=${L##*) }
		set -- $S
		[ "$1" = Z ] && continue
		[ "$4" = "$SID" ] && PIDS="$PIDS ${D#/proc/}"
	done
	for F in $(grep -lsxzF "AGENTTY_SESSION=$MK" /proc/[0-9]*/environ); do
		P=${F#/proc/}
		P=${P%/environ}
		read -r L <"/proc/$P/stat" || continue
		S=${L##*) }
		[ "${S%% *}" = Z ] && continue
		case " $PIDS " in *" $P "*) ;; *) PIDS="$PIDS $P" ;; esac
	done
}

while read -r CMD A B C; do
	case $CMD in
	P) probe "$A" ;;
	F) probe "$A" fast ;;
	S) if kill -s "$A" -- "-$B"; then echo ok; else echo "err no process group $B"; fi ;;
	K)
		tree "$B" "$C"
		if [ -n "$PIDS" ]; then
			kill -s "$A" $PIDS
			if [ "$A" != KILL ]; then
				kill -s CONT $PIDS
				ignterm "$B" && kill -s HUP "$B" && kill -s CONT "$B"
			fi
		fi
		set -- $PIDS
		echo "ok $#"
		;;
	C)
		tree "$A" "$B"
		set -- $PIDS
		echo "ok $#"
		;;
	*) echo "err unknown request" ;;
	esac
done

# agentty remote helper: one per SSH connection, on its own channel.
# Reads one request per line on stdin and answers one line on stdout.
#   P ROOT             what ROOT's input group is blocked in: the raw /proc
#                      facts (syscalls, their arguments, the memory and
#                      epoll sets they point at, which fds are the input)
#                      that inputwait.Remote judges, as Inspect does locally
#   F ROOT             the same without the terminal modes (no fork of stty)
#   S SIG PGID         signal a process group -> ok | err ...
#   K SIG SID MARKER   signal every process of session SID or carrying
#                      AGENTTY_SESSION=MARKER -> ok COUNT; unless SIG is
#                      KILL, then SIGCONT (stopped ones), and SIGHUP and
#                      SIGCONT to SID if it ignores SIGTERM (as an
#                      interactive shell does: its terminal's hang-up)
#   C SID MARKER       count those processes -> ok COUNT
#   L ROOT             the sockets ROOT's tree listens on -> ok, then per
#                      process with sockets "p PID LEN COMM" and "i INODE"
#                      for each, then the table rows holding those inodes:
#                      "n TABLE LOCAL ST INODE" (tcp, tcp6, udp, udp6) and
#                      "u FLAGS TYPE ST INODE LEN PATH" (unix)
# It only reads /proc and sends signals; it never polls on its own.
exec 2>/dev/null
LC_ALL=C # ${#x} counts bytes
OS=$(uname -s)
ARCH=$(uname -m)
echo "agentty-helper $OS $ARCH"
[ "$OS" = Linux ] || exit 0
# Syscalls whose arguments matter: reads (fd), select/pselect6 (readfds,
# timeout pointer), poll (pollfds), ppoll (pollfds, timeout pointer),
# epoll waits (epoll fd) and epoll_pwait2 (timeout pointer).
case $ARCH in
x86_64) RD="0 19 17 295 327"; SEL="23 270"; POL="7"; PPL="271"; EPW="232 281"; EP2="441" ;;
aarch64|arm64) RD="63 65 67 69 286"; SEL="72"; POL=; PPL="73"; EPW="22"; EP2="441" ;;
*) RD=; SEL=; POL=; PPL=; EPW=; EP2= ;;
esac

inlist() {
	for x in $2; do [ "$x" = "$1" ] && return 0; done
	return 1
}

# inputs DIR TTYNR: records for the fds of DIR that are the session's input
# (/dev/tty counts for a process whose controlling terminal is the
# session's), once per process.
inputs() {
	[ "$INS" = "$1" ] && return
	INS=$1 HASIN=
	for f in "$1"/fd/*; do
		if [ "$f" -ef "$IN" ]; then
			if [ "$PTY" = 1 ]; then O="$O i ${f##*/} tty"; else O="$O i ${f##*/} pipe"; fi
			HASIN=1
		elif [ "$PTY" = 1 ] && [ "$2" = "$TTYNR" ] && [ "$f" -ef /dev/tty ]; then
			O="$O i ${f##*/} /dev/tty"
			HASIN=1
		fi
	done
}

# mem DIR ADDR N: a record with the N bytes at ADDR (fewer when unreadable).
# Without the input open, no wait can be on it: nothing is read (2 forks).
# A thread that has not run since the last probe (CK: its run counters and
# syscall line) is still in the same call, whose arguments the kernel
# copied on entry: the bytes read then still tell what it waits for.
mem() {
	[ -n "$HASIN" ] || return
	case $2 in 0x0 | 0) return ;; esac
	[ ${#2} -le 16 ] || return # not a user-space pointer; $((...)) could overflow
	KEEP="$KEEP ${TID}_$2"
	eval "MK=\${MK_${TID}_$2-} MC=\${MC_${TID}_$2-}"
	if [ -n "$CK" ] && [ "$MK" = "$CK" ]; then
		O="$O $MC"
		return
	fi
	# bs=1: skip and count in bytes with any dd (busybox has no skip_bytes);
	# dd seeks to the offset, and interactive programs pass a few bytes.
	M=$(dd if="$1/mem" bs=1 skip=$(($2)) count="$3" | od -An -vtx1)
	set -- "$2" "$3" $M
	MC="m $*"
	O="$O $MC"
	eval "MK_${TID}_$1=\$CK MC_${TID}_$1=\$MC"
}

# epoll DIR EPFD: records for what epoll instance EPFD watches.
epoll() {
	{
		while read -r k v e ev rest; do
			[ "$k" = tfd: ] && O="$O e $2 $v $ev"
		done
		true
	} <"$1/fdinfo/$2" || O="$O e $2 -"
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
	R=$1 FAST=$2
	if ! read -r L <"/proc/$R/stat"; then
		echo "r 0 0 0 root process $R has exited"
		return
	fi
	S=${L##*) }
	set -- $S
	PG=$3
	PTY=0
	TTYNR=$5
	if [ "$6" -gt 0 ]; then PG=$6; PTY=1; fi
	IN=/proc/$R/fd/0
	if [ ! -e "$IN" ]; then
		echo "r 0 0 $PG stdin is closed"
		return
	fi
	members "$R"
	SUM=0 N=0 BUSY= WAITS= INS= O= KEEP=
	for P in $MEMBERS; do
		D=/proc/$P
		read -r L <"$D/stat" || continue
		S=${L##*) }
		set -- $S
		[ "$3" = "$PG" ] || continue
		N=$((N + 1))
		PT=$5
		C=${L#*(}
		C=${C%)*}
		O="$O p $P ${#C} $C"
		for T in "$D"/task/[0-9]*; do
			# Times the thread ran: schedstat, or context switches where the
			# kernel keeps no schedstat.
			CK=
			if read -r a b c <"$T/schedstat"; then
				SUM=$((SUM + c))
				CK="$a $c"
			else
				while read -r k v; do
					case $k in *ctxt_switches:) SUM=$((SUM + v)) ;; esac
				done <"$T/status"
			fi
			# After a thread on a CPU the answer is running; the rest only
			# feed the counters.
			[ -n "$BUSY" ] && continue
			read -r L <"$T/stat" || continue
			S=${L##*) }
			TID=${T##*/}
			case ${S%% *} in
			S) ;;
			R | D) O="$O t $TID ${S%% *}"; BUSY=1; continue ;;
			*) O="$O t $TID ${S%% *}"; continue ;;
			esac
			if ! read -r L <"$T/syscall"; then
				[ -e "$T/stat" ] && { O="$O d $TID"; BUSY=1; }
				continue
			fi
			set -- $L
			case $1 in
			running) O="$O t $TID R"; BUSY=1; continue ;;
			-1) O="$O s $TID -1"; BUSY=1; continue ;;
			esac
			NR=$1
			O="$O s $TID $NR $2 $3 $4 $5 $6 $7"
			[ -n "$CK" ] && CK="$CK $L"
			if inlist "$NR" "$RD"; then
				if [ "$D/fd/$(($2))" -ef "$IN" ] || { [ "$PTY" = 1 ] && [ "$D/fd/$(($2))" -ef /dev/tty ]; }; then
					inputs "$D" "$PT"
					WAITS=1
				elif [ -p "$D/fd/$(($2))" ]; then
					O="$O a $(($2))"
				fi
				continue
			fi
			A1=$2 A2=$3 A3=$4 A4=$5 A5=$6
			if inlist "$NR" "$SEL"; then
				inputs "$D" "$PT"
				# fd_set is copied in whole longs; 65536 fds at most
				K=$(($2))
				[ "$K" -gt 65536 ] && K=65536
				[ "$K" -gt 0 ] && mem "$D" "$A2" $(((K + 63) / 64 * 8))
				mem "$D" "$A5" 16
			elif inlist "$NR" "$POL" || inlist "$NR" "$PPL"; then
				inputs "$D" "$PT"
				# struct pollfd is 8 bytes; 4096 of them at most
				K=$(($3))
				[ "$K" -gt 4096 ] && K=4096
				[ "$K" -gt 0 ] && mem "$D" "$A1" $((K * 8))
				inlist "$NR" "$PPL" && mem "$D" "$A3" 16
			elif inlist "$NR" "$EPW" || inlist "$NR" "$EP2"; then
				inputs "$D" "$PT"
				epoll "$D" $(($2))
				inlist "$NR" "$EP2" && mem "$D" "$A4" 16
			else
				continue
			fi
			[ -n "$HASIN" ] && WAITS=1
		done
	done
	for k in $CACHED; do
		case " $KEEP " in *" $k "*) ;; *) unset "MK_$k" "MC_$k" ;; esac
	done
	CACHED=$KEEP
	LF=-
	if [ "$PTY" = 1 ] && [ -n "$WAITS" ] && [ -z "$BUSY" ] && [ "$FAST" != fast ]; then
		# stty -g prints iflag:oflag:cflag:lflag:... in hex.
		G=$(stty -g <"$IN")
		LF=${G#*:}
		LF=${LF#*:}
		LF=${LF#*:}
		LF=${LF%%:*}
	fi
	printf '%s\n' "g $SUM $N $PG $ARCH $PTY $LF$O"
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

# listening ROOT: the sockets of ROOT's tree, for ports.Parse.
listening() {
	members "$1"
	O= INOS= NP=
	for P in $MEMBERS; do
		I=
		for W in $(ls -l "/proc/$P/fd" 2>/dev/null); do
			case $W in socket:\[*\]) W=${W#socket:\[}; I="$I ${W%\]}" ;; esac
		done
		[ -n "$I" ] || continue
		read -r L <"/proc/$P/stat" || continue
		C=${L#*(}
		C=${C%)*}
		O="$O p $P ${#C} $C"
		for W in $I; do O="$O i $W"; done
		INOS="$INOS$I"
		[ -n "$NP" ] || NP=$P
	done
	T=
	if [ -n "$NP" ]; then
		FS=
		for W in tcp tcp6 udp udp6 unix; do
			[ -r "/proc/$NP/net/$W" ] && FS="$FS /proc/$NP/net/$W"
		done
		T=$(LC_ALL=C awk -v want="$INOS" '
			BEGIN { n = split(want, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
			FNR == 1 { t = FILENAME; sub(/.*\//, "", t); next }
			t == "unix" {
				if ($7 in w) {
					p = ""
					for (i = 8; i <= NF; i++) p = p (i > 8 ? " " : "") $i
					printf " u %s %s %s %s %d %s", $4, $5, $6, $7, length(p), p
				}
				next
			}
			($10 in w) { printf " n %s %s %s %s", t, $2, $4, $10 }' $FS)
	fi
	printf 'ok%s%s\n' "$O" "$T"
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
	L) listening "$A" ;;
	C)
		tree "$A" "$B"
		set -- $PIDS
		echo "ok $#"
		;;
	*) echo "err unknown request" ;;
	esac
done

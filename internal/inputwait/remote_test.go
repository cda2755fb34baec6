package inputwait

import "testing"

// TestRemote_JudgesProbeAnswers: answers of the remote helper (helper.sh)
// are judged by Inspect's rules; sshbackend's helper tests run the real
// script against real programs.
func TestRemote_JudgesProbeAnswers(t *testing.T) {
	const cat = "g 1 1 100 x86_64 0 - p 100 3 cat s 100 0 0x0 0x7f00 0x20000 0x0 0x0 0x0"
	for _, tc := range []struct {
		name, answer string
		state        State
		detail       string
	}{
		{"decided by the helper", "r 0 0 100 stdin is closed", Running, "stdin is closed"},
		{"read of the input pipe", cat + " i 0 pipe", AwaitingInput, "pid 100 (cat) in read on fd 0 (pipe)"},
		{"read of another pipe", "g 1 1 100 x86_64 0 - p 100 3 cat s 100 0 0x3 0x7f00 0x1 0x0 0x0 0x0 a 3", Running,
			"nothing in process group 100 reads the input; pid 100 (cat) reads a pipe in read"},
		{"read of a file", cat, Running, "pid 100 (cat) is blocked in read, not on the input"},
		{"a name with spaces", "g 1 1 100 x86_64 0 - p 100 7 my prog s 100 0 0x0 0x7f00 0x1 0x0 0x0 0x0 i 0 pipe", AwaitingInput, "pid 100 (my prog) in read on fd 0 (pipe)"},
		{"echo on in canonical mode", "g 1 1 100 x86_64 1 8a3b p 100 4 bash s 100 0 0x0 0x7f00 0x1 0x0 0x0 0x0 i 0 tty", AwaitingInput, "pid 100 (bash) in read on fd 0 (tty)"},
		{"password", "g 1 1 100 x86_64 1 8a23 p 100 4 bash s 100 0 0x0 0x7f00 0x1 0x0 0x0 0x0 i 0 tty",
			AwaitingPassword, "pid 100 (bash) in read on fd 0 (tty); echo off"},
		{"pselect6 with a timeout", "g 1 1 100 x86_64 1 8a3b p 100 7 python3 s 100 270 0x1 0x1000 0x0 0x0 0x2000 0x0 i 0 tty" +
			" m 0x1000 8 01 00 00 00 00 00 00 00 m 0x2000 16 02 00 00 00 00 00 00 00 00 65 cd 1d 00 00 00 00", AwaitingInput,
			"pid 100 (python3) in pselect6 on fd 0 (tty) with a 2.5s timeout"},
		{"select of another fd", "g 1 1 100 x86_64 0 - p 100 7 python3 s 100 270 0x4 0x1000 0x0 0x0 0x0 0x0 i 0 pipe m 0x1000 8 08 00 00 00 00 00 00 00",
			Running, "pid 100 (python3) is blocked in pselect6, not on the input"},
		{"unreadable memory", "g 1 1 100 x86_64 0 - p 100 7 python3 s 100 270 0x1 0x1000 0x0 0x0 0x0 0x0 i 0 pipe m 0x1000 8",
			Running, "pid 100 (python3) cannot read its memory (permission denied); assuming running"},
		{"ppoll on arm64", "g 1 1 100 aarch64 1 8a3b p 100 2 vi s 100 73 0x1000 0x2 0x0 0x0 0x8 0x0 i 0 tty" +
			" m 0x1000 16 05 00 00 00 04 00 00 00 00 00 00 00 01 00 00 00", AwaitingInput, "pid 100 (vi) in ppoll on fd 0 (tty)"},
		{"poll on the input for output only", "g 1 1 100 x86_64 0 - p 100 4 tail s 100 7 0x1000 0x2 0xffffffff 0x0 0x0 0x0 i 0 pipe" +
			" m 0x1000 16 04 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00", Running, "pid 100 (tail) is blocked in poll, not on the input"},
		{"epoll_wait with a timeout", "g 1 1 100 x86_64 0 - p 100 4 node s 100 232 0x5 0x7f00 0x8 0x3e8 0x0 0x0 i 0 pipe e 5 7 19 e 5 0 19",
			AwaitingInput, "pid 100 (node) in epoll_wait on fd 0 (pipe) with a 1s timeout"},
		{"unreadable epoll set", "g 1 1 100 x86_64 0 - p 100 4 node s 100 232 0x5 0x7f00 0x8 0x3e8 0x0 0x0 i 0 pipe e 5 -",
			Running, "pid 100 (node) cannot read its epoll set (permission denied); assuming running"},
		{"unreadable syscall", "g 1 1 100 x86_64 0 - p 100 3 cat d 100", Running, "pid 100 (cat) cannot read its syscall (permission denied); assuming running"},
		{"a thread on a CPU", cat + " i 0 pipe t 101 R", Running, "pid 100 (cat) thread 101 is running"},
		{"a sleeping sibling thread", cat + " i 0 pipe s 101 230 0x0 0x0 0x1 0x0 0x0 0x0", AwaitingInput, "pid 100 (cat) in read on fd 0 (pipe)"},
		{"busy first member decides", "g 1 2 100 x86_64 0 - p 100 2 sh t 100 R p 101 3 cat s 101 0 0x0 0x7f00 0x1 0x0 0x0 0x0 i 0 pipe",
			Running, "pid 100 (sh) is running"},
		{"shell waits, child reads", "g 1 2 100 x86_64 0 - p 100 2 sh s 100 61 0xffffffff 0x0 0x0 0x0 0x0 0x0 p 101 3 cat s 101 0 0x0 0x7f00 0x1 0x0 0x0 0x0 i 0 pipe",
			AwaitingInput, "pid 101 (cat) in read on fd 0 (pipe)"},
		{"a sleeping member", "g 1 2 100 x86_64 0 - p 100 5 sleep s 100 230 0x0 0x0 0x0 0x0 0x0 0x0 p 101 2 sh s 101 0 0x0 0x7f00 0x1 0x0 0x0 0x0 i 0 pipe",
			AwaitingInput, "pid 101 (sh) in read on fd 0 (pipe)"},
		{"shell waits, child sleeps", "g 1 2 100 x86_64 0 - p 100 2 sh s 100 61 0xffffffff 0x0 0x0 0x0 0x0 0x0 p 101 5 sleep s 101 230 0x0 0x0 0x0 0x0 0x0 0x0",
			Running, "pid 101 (sleep) is blocked in clock_nanosleep, not on the input"},
		{"no member", "g 0 0 100 x86_64 0 -", Running, "no live process in process group 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Remote(tc.answer)
			if err != nil || p.State != tc.state || p.Detail != tc.detail {
				t.Fatalf("Remote = %s %q, %v; want %s %q", p.State, p.Detail, err, tc.state, tc.detail)
			}
		})
	}
	t.Run("fingerprint follows the counters", func(t *testing.T) {
		a, _ := Remote(cat + " i 0 pipe")
		b, _ := Remote("g 2" + cat[3:] + " i 0 pipe")
		if a.Fingerprint == b.Fingerprint {
			t.Fatal("same fingerprint for different run counters")
		}
	})
	for _, bad := range []string{"", "x 1 1 1", "g 1 1", "g 1 1 100 sparc64 0 -", "g 1 1 100 x86_64 0 - i 0 pipe",
		"g 1 1 100 x86_64 0 - p 100 9 cat", "g 1 1 100 x86_64 0 - p 100 3 cat s 100 0 0x0", "g 1 1 100 x86_64 0 - p 100 3 cat q 1"} {
		if p, err := Remote(bad); err == nil || p.State != Running {
			t.Errorf("Remote(%q) = %+v, %v; want Running and an error", bad, p, err)
		}
	}
}

package inputwait

import (
	"testing"
	"time"
)

func sm(pid int, comm string, start, cpu uint64) sampleMember {
	m := sampleMember{start: start, cpuNS: cpu, runs: cpu / 1000}
	m.pid = pid
	m.comm.n = copy(m.comm.b[:], comm)
	return m
}

// TestInfer_Decide runs the inferred verdict's decision over sequences of
// samples: every fact that refutes "waits for input", the quiet windows,
// and the password rule. The samples are what a sampler on any kernel
// hands over, so this table holds on every platform.
func TestInfer_Decide(t *testing.T) {
	t0 := time.Unix(1000, 0)
	py := sm(100, "python3", 7, 5000)
	sh := sm(90, "bash", 3, 9000)
	at := func(ms int, members ...sampleMember) sample {
		return sample{at: t0.Add(time.Duration(ms) * time.Millisecond), pty: true, pgid: 100, members: members, threads: len(members)}
	}
	with := func(m sampleMember, f func(*sampleMember)) sampleMember { f(&m); return m }
	// deep facts: raw mode, echo on, queues empty, unless a case says.
	raw := func(s *sample) {}
	canon := func(s *sample) { s.canonical, s.echo = true, true }
	password := func(s *sample) { s.canonical, s.echo = true, false }
	readline := func(s *sample) { s.canonical, s.echo = false, false }
	for _, tc := range []struct {
		name    string
		samples []sample
		deep    func(*sample)
		want    State
		detail  string
	}{
		{"first sample", []sample{at(0, py)}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"quiet shorter than the window", []sample{at(0, py), at(10, py)}, raw, Running,
			"inferred: pid 100 (python3) quiet for 10 ms, needs 30 ms"},
		{"quiet for the window, raw", []sample{at(0, py), at(30, py)}, raw, AwaitingInput,
			"inferred: pgrp 100 (python3) 1/1 threads waiting, no CPU for 30 ms, tty input queue empty"},
		{"quiet measured from the last change", []sample{at(0, py), at(40, with(py, func(m *sampleMember) { m.cpuNS++ })),
			at(60, with(py, func(m *sampleMember) { m.cpuNS++ }))}, raw, Running,
			"inferred: pid 100 (python3) quiet for 20 ms, needs 30 ms"},
		{"cpu moved", []sample{at(0, py), at(40, with(py, func(m *sampleMember) { m.cpuNS += 10 }))}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"syscalls moved", []sample{at(0, py), at(40, with(py, func(m *sampleMember) { m.runs++ }))}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"context switches moved", []sample{at(0, py), at(40, with(py, func(m *sampleMember) { m.csw++ }))}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"member added", []sample{at(0, py), at(40, py, sh)}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"member replaced", []sample{at(0, py, sh), at(40, py, sm(91, "bash", 3, 9000))}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"pid reused", []sample{at(0, py), at(40, sm(100, "python3", 8, 5000))}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"foreground group changed", []sample{at(0, py), func() sample { s := at(40, py); s.pgid = 101; return s }()}, raw, Running,
			"inferred: pid 100 (python3) ran since the last look"},
		{"running", []sample{at(0, py), at(40, with(py, func(m *sampleMember) { m.state, m.tid = runRunning, 102 }))}, raw, Running,
			"inferred: pid 100 (python3) thread 102 is running"},
		{"stopped member", []sample{at(0, py, sh), at(40, py, with(sh, func(m *sampleMember) { m.state = runStopped }))}, raw, Running,
			"inferred: pid 90 (bash) is stopped"},
		{"uninterruptible thread", []sample{at(0, py), at(40, py)}, func(s *sample) {
			s.members[0].state, s.members[0].tid = runUninterruptible, 101
		}, Running, "inferred: pid 100 (python3) thread 101 is in uninterruptible sleep"},
		{"running beats stopped", []sample{at(0, py, sh), at(40, with(py, func(m *sampleMember) { m.state = runStopped }),
			with(sh, func(m *sampleMember) { m.state = runRunning }))}, raw, Running,
			"inferred: pid 90 (bash) is running"},
		{"input queued", []sample{at(0, py), at(40, py)}, func(s *sample) { s.inq = 5 }, Running,
			"inferred: 5 bytes typed, not read"},
		{"output queued", []sample{at(0, py), at(40, py)}, func(s *sample) { s.outq = 4095 }, Running,
			"inferred: blocked writing output (4095 bytes not taken)"},
		{"canonical, short quiet", []sample{at(0, py), at(100, py)}, canon, Running,
			"inferred: pid 100 (python3) quiet for 100 ms, canonical mode needs 250 ms"},
		{"canonical, long quiet", []sample{at(0, py), at(250, py)}, canon, AwaitingInput,
			"inferred: pgrp 100 (python3) 1/1 threads waiting, no CPU for 250 ms, tty input queue empty"},
		{"password", []sample{at(0, py), at(300, py)}, password, AwaitingPassword,
			"inferred: pgrp 100 (python3) 1/1 threads waiting, no CPU for 300 ms, tty input queue empty; echo off"},
		{"raw with echo off is a line editor", []sample{at(0, py), at(30, py)}, readline, AwaitingInput,
			"inferred: pgrp 100 (python3) 1/1 threads waiting, no CPU for 30 ms, tty input queue empty"},
		{"leader names the group", []sample{at(0, sh, py), at(30, sh, py)}, raw, AwaitingInput,
			"inferred: pgrp 100 (python3) 2/2 threads waiting, no CPU for 30 ms, tty input queue empty"},
		{"no foreground group", []sample{func() sample { s := at(0); s.pgid = 0; return s }()}, raw, Running,
			"inferred: the terminal has no foreground process group"},
		{"no live member", []sample{at(0), at(40)}, raw, Running,
			"inferred: no live process in process group 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st inferState
			var p Probe
			for i := range tc.samples {
				s := tc.samples[i]
				s.members = append([]sampleMember(nil), s.members...)
				var quiet time.Duration
				var done bool
				p, quiet, done = st.observe(&s)
				if !done {
					if i != len(tc.samples)-1 {
						t.Fatalf("sample %d decided nothing before the last", i)
					}
					tc.deep(&s)
					p = judge(&s, quiet, p.Fingerprint)
				}
			}
			if p.State != tc.want || p.Detail != tc.detail {
				t.Errorf("probe = %s %q; want %s %q", p.State, p.Detail, tc.want, tc.detail)
			}
		})
	}
}

// TestInfer_Fingerprint: the fingerprint moves whenever anything in the
// group ran or the membership changed, and only then, so the session's
// input gate tells a stale verdict from a new one.
func TestInfer_Fingerprint(t *testing.T) {
	base := sample{pgid: 100, members: []sampleMember{sm(100, "python3", 7, 5000)}}
	fp := base.fingerprint()
	if again := (sample{pgid: 100, members: []sampleMember{sm(100, "python3", 7, 5000)}}); again.fingerprint() != fp {
		t.Error("the same facts gave another fingerprint")
	}
	for _, tc := range []struct {
		name string
		f    func(*sample)
	}{
		{"cpu", func(s *sample) { s.members[0].cpuNS++ }},
		{"runs", func(s *sample) { s.members[0].runs++ }},
		{"csw", func(s *sample) { s.members[0].csw++ }},
		{"start", func(s *sample) { s.members[0].start++ }},
		{"pid", func(s *sample) { s.members[0].pid++ }},
		{"pgid", func(s *sample) { s.pgid++ }},
		{"member", func(s *sample) { s.members = append(s.members, sm(101, "sh", 1, 1)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			s.members = append([]sampleMember(nil), base.members...)
			tc.f(&s)
			if s.fingerprint() == fp {
				t.Errorf("fingerprint did not move")
			}
		})
	}
}

//go:build linux && (amd64 || arm64)

package inputwait

import (
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		want statInfo
		comm string
	}{
		{"4242 (python3) S 4200 4242 4242 34816 4242 4194560 1 2 3", true,
			statInfo{state: 'S', ppid: 4200, pgrp: 4242, session: 4242, ttyNr: 34816}, "python3"},
		{"7 (a) (b) c) R 1 7 1 0 -1 0", true,
			statInfo{state: 'R', ppid: 1, pgrp: 7, session: 1, ttyNr: 0}, "a) (b) c"},
		{"9 (x) Z 1 -1 9 34817", true,
			statInfo{state: 'Z', ppid: 1, pgrp: -1, session: 9, ttyNr: 34817}, "x"},
		{"9 (x) S 1 2", false, statInfo{}, ""},
		{"garbage", false, statInfo{}, ""},
	}
	for _, tc := range tests {
		var got statInfo
		ok := parseStat([]byte(tc.line), &got)
		if ok != tc.ok {
			t.Errorf("parseStat(%q) ok = %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if got.comm.String() != tc.comm {
			t.Errorf("parseStat(%q) comm = %q, want %q", tc.line, got.comm.String(), tc.comm)
		}
		got.comm = procName{}
		if got != tc.want {
			t.Errorf("parseStat(%q) = %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

func TestParseSyscall(t *testing.T) {
	tests := []struct {
		line    string
		ok      bool
		running bool
		want    sysState
	}{
		{"running\n", true, true, sysState{}},
		{"-1 0x7ffc 0x4005\n", true, false, sysState{nr: -1}},
		{"270 0x1 0x7ffd1000 0x0 0x0 0x0 0x7ffd0ff0 0x7ffd0f00 0x7f00aa\n", true, false,
			sysState{nr: 270, args: [6]uint64{1, 0x7ffd1000, 0, 0, 0, 0x7ffd0ff0}}},
		{"0 0x0 0x5612 0x1\n", false, false, sysState{}},
		{"zz 0x0\n", false, false, sysState{}},
	}
	for _, tc := range tests {
		var got sysState
		running, ok := parseSyscall([]byte(tc.line), &got)
		if ok != tc.ok || (ok && (running != tc.running || got != tc.want)) {
			t.Errorf("parseSyscall(%q) = %v %+v, %v; want %v %+v, %v", tc.line, running, got, ok, tc.running, tc.want, tc.ok)
		}
	}
}

func TestParseCounters(t *testing.T) {
	rt, pc, ok := parseSchedstat([]byte("81567610 7394824 400\n"))
	if !ok || rt != 81567610 || pc != 400 {
		t.Errorf("parseSchedstat = %d, %d, %v", rt, pc, ok)
	}
	if _, _, ok := parseSchedstat([]byte("12\n")); ok {
		t.Error("parseSchedstat accepted a truncated line")
	}
	status := "Name:\tbash\nvoluntary_ctxt_switches:\t42\nnonvoluntary_ctxt_switches:\t6\n"
	if got := parseCtxtSwitches([]byte(status)); got != 48 {
		t.Errorf("parseCtxtSwitches = %d, want 48", got)
	}
}

func TestLookupSyscall(t *testing.T) {
	for _, row := range syscallTable {
		kind, name := lookupSyscall(row.nr)
		if kind != row.kind || name != row.name {
			t.Errorf("lookupSyscall(%d) = %v %q, want %v %q", row.nr, kind, name, row.kind, row.name)
		}
	}
	if kind, name := lookupSyscall(99999); kind != sysOther || name != "" {
		t.Errorf("lookupSyscall(99999) = %v %q", kind, name)
	}
}

//go:build linux

package procfile

import (
	"reflect"
	"testing"
)

func TestParseStat_Lines(t *testing.T) {
	// A full line as the kernel prints it: 52 fields, num_threads the 20th,
	// starttime the 22nd.
	full := "4242 (python3) S 4200 4243 4244 34816 4245 4194560 1 2 3 4 5 6 7 8 20 0 3 0 99 1 2 3"
	tests := []struct {
		name string
		line string
		ok   bool
		want Stat // Comm compared as a string below
		comm string
	}{
		{"full line", full, true,
			Stat{State: 'S', PPid: 4200, PGrp: 4243, Session: 4244, TTYNr: 34816, TPGid: 4245, UTime: 5, STime: 6, NumThreads: 3, StartTime: 99, Fields: 19}, "python3"},
		{"spaces and parentheses in comm", "7 (a) (b c) ) R 1 7 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0\n", true,
			Stat{State: 'R', PPid: 1, PGrp: 7, Session: 1, TTYNr: 0, TPGid: -1, NumThreads: 1, Fields: 18}, "a) (b c) "},
		{"empty comm", "8 () S 1 8 8 0 -1", true,
			Stat{State: 'S', PPid: 1, PGrp: 8, Session: 8, TPGid: -1, Fields: 5}, ""},
		{"negative tty_nr is the device's top bit", "9 (x) Z 1 -1 9 -2147450879 9", true,
			Stat{State: 'Z', PPid: 1, PGrp: -1, Session: 9, TTYNr: 0x80008001, TPGid: 9, Fields: 5}, "x"},
		{"stops after tty_nr", "9 (x) S 1 2 3 4", true,
			Stat{State: 'S', PPid: 1, PGrp: 2, Session: 3, TTYNr: 4, Fields: 4}, "x"},
		{"truncated before tty_nr", "9 (x) S 1 2 3", false, Stat{}, ""},
		{"truncated after comm", "9 (x)", false, Stat{}, ""},
		{"no comm", "garbage 1 2 3 4 5", false, Stat{}, ""},
		{"close before open", "9 )x( S 1 2 3 4", false, Stat{}, ""},
		{"empty", "", false, Stat{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got Stat
			ok := ParseStat([]byte(tc.line), &got)
			if ok != tc.ok {
				t.Fatalf("ParseStat(%q) ok = %v, want %v", tc.line, ok, tc.ok)
			}
			if !ok {
				return
			}
			if string(got.Comm) != tc.comm {
				t.Errorf("comm = %q, want %q", got.Comm, tc.comm)
			}
			got.Comm = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseStat(%q) = %+v, want %+v", tc.line, got, tc.want)
			}
		})
	}
}

// TestParseStat_NoAllocs: the parser runs for every process of every probe.
func TestParseStat_NoAllocs(t *testing.T) {
	line := []byte("4242 (python3) S 4200 4243 4244 34816 4245 4194560 1 2 3 4 5 6 7 8 20 0 3 0 99\n")
	var st Stat
	if n := testing.AllocsPerRun(100, func() { ParseStat(line, &st) }); n != 0 {
		t.Errorf("ParseStat allocates %v times per call, want 0", n)
	}
}

func BenchmarkParseStat(b *testing.B) {
	line := []byte("4242 (python3) S 4200 4243 4244 34816 4245 4194560 1108 0 0 0 2 1 0 0 20 0 1 0 1744000 12963840 2347 18446744073709551615 1 1 0 0 0 0 0 16781312 2 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
	var st Stat
	for b.Loop() {
		ParseStat(line, &st)
	}
}

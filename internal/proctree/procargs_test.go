package proctree

import (
	"encoding/binary"
	"testing"
)

// procArgs builds a KERN_PROCARGS2 buffer as XNU lays it out.
func procArgs(argc int32, path string, pad int, rest string) []byte {
	b := binary.NativeEndian.AppendUint32(nil, uint32(argc))
	b = append(b, path...)
	b = append(b, make([]byte, 1+pad)...)
	return append(b, rest...)
}

func TestProcArgsEnv_Samples(t *testing.T) {
	const marker = EnvKey + "=i1/s3"
	cases := []struct {
		name string
		b    []byte
		env  string
	}{
		{"sleep", procArgs(2, "/bin/sleep", 6, "sleep\x001000\x00HOME=/Users/a\x00"+marker+"\x00\x00ptr_munge=\x00"),
			"HOME=/Users/a\x00" + marker + "\x00"},
		{"no padding", procArgs(1, "/bin/sh", 0, "sh\x00A=1\x00\x00"), "A=1\x00"},
		{"empty environment", procArgs(1, "/bin/sh", 3, "sh\x00\x00executable_path=/bin/sh\x00"), ""},
		{"environment to the end", procArgs(1, "/bin/sh", 0, "sh\x00A=1\x00B=2"), "A=1\x00B=2"},
		{"argc past the end", procArgs(3, "/bin/sh", 0, "sh\x00x\x00"), ""},
		{"negative argc", procArgs(-1, "/bin/sh", 0, "sh\x00"), ""},
		{"short", []byte{1, 0}, ""},
		{"no path end", append(binary.NativeEndian.AppendUint32(nil, 1), "/bin/sh"...), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(procArgsEnv(tc.b)); got != tc.env {
				t.Errorf("env = %q, want %q", got, tc.env)
			}
		})
	}
	env := procArgsEnv(cases[0].b)
	if !envHasEntry(env, marker) || envHasEntry(env, "ptr_munge=") || !envHasPrefix(env, EnvKey+"=i1/") {
		t.Errorf("marker matching on %q is wrong", env)
	}
}

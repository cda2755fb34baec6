package keys

import "testing"

func TestBytes_Names(t *testing.T) {
	cases := map[string]string{
		"enter": "\r", "Tab": "\t", "escape": "\x1b", "backspace": "\x7f",
		"delete": "\x1b[3~", "up": "\x1b[A", "down": "\x1b[B", "left": "\x1b[D", "right": "\x1b[C",
		"home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
		"ctrl+a": "\x01", "ctrl+c": "\x03", "CTRL+D": "\x04", "ctrl+z": "\x1a", "C-c": "\x03",
		"^D": "\x04", "ctrl-l": "\x0c", "f1": "\x1bOP", "f5": "\x1b[15~", "f12": "\x1b[24~",
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Bytes(name)
			if err != nil || got != want {
				t.Fatalf("Bytes(%q) = %q, %v; want %q", name, got, err, want)
			}
		})
	}
	if _, err := Bytes("hyper+q"); err == nil {
		t.Fatal("unknown key accepted")
	}
	if n := len(Names()); n < 26+12+14 {
		t.Fatalf("only %d names", n)
	}
}

func TestApplication_CursorKeysUseSS3(t *testing.T) {
	for name, want := range map[string]string{"up": "\x1bOA", "down": "\x1bOB", "right": "\x1bOC", "left": "\x1bOD",
		"home": "\x1bOH", "end": "\x1bOF", "pageup": "\x1b[5~", "enter": "\r", "f1": "\x1bOP"} {
		b, err := Bytes(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := Application(b); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// flusher reads its terminal a byte at a time and discards pending input
// after each read, as ranger does (flushinput, curses.flushinp).
const flusher = `
import os, sys, termios, tty
tty.setcbreak(0)
mode = termios.tcgetattr(0)
mode[3] &= ~termios.ECHO
termios.tcsetattr(0, termios.TCSANOW, mode)
print("ready", flush=True)
while True:
    b = os.read(0, 1)
    termios.tcflush(0, termios.TCIFLUSH)
    print("key", b.hex(), flush=True)
    if b == b"\n":
        print("done", flush=True)
        break
`

// cursesFlusher is ranger's input loop in small: curses decodes each key
// (arrows are escape sequences) and flushinp discards the rest.
const cursesFlusher = `
import curses
def main(w):
    w.keypad(True)
    w.addstr(0, 0, "ready")
    w.refresh()
    got = []
    while True:
        k = w.getch()
        curses.flushinp()
        got.append(k)
        if k == 10:
            return got
print("keys", ",".join(map(str, curses.wrapper(main))), flush=True)
`

// TestSendInput_KeysApart: named keys sent together reach such a program
// as one write and all but the first are flushed; with keys_apart each key
// goes once the program waits again, and every one arrives, in order,
// each exactly once, arrows decoded by curses too. Looped: a key sent
// before the program blocks again is lost.
func TestSendInput_KeysApart(t *testing.T) {
	c := newClient(t, session.Config{})
	keys := []string{"ctrl+a", "tab", "space", "ctrl+b", "ctrl+e"}
	want := "key 01\nkey 09\nkey 20\nkey 02\nkey 05\nkey 0a\ndone"
	start := func(t *testing.T) string {
		st := c.on(t).start(map[string]any{"argv": []string{"python3", "-c", flusher}, "until": "ready", "timeout_ms": 20000})
		if st.Match != "ready" {
			t.Fatalf("start: %+v", st)
		}
		return st.SessionID
	}
	got := func(out string) string {
		var ks []string
		for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
			if strings.HasPrefix(l, "key ") || l == "done" {
				ks = append(ks, l)
			}
		}
		return strings.Join(ks, "\n")
	}
	t.Run("together", func(t *testing.T) {
		id := start(t)
		var r SendResult
		c.on(t).call("send_input", map[string]any{"session_id": id, "keys": keys, "timeout_ms": 3000}, &r)
		// The terminal may hand one write over in pieces; the first
		// piece's keys after the first are flushed all the same.
		if g := got(r.Output); !strings.HasPrefix(g, "key 01") || strings.Count(g, "key") >= len(keys) {
			t.Fatalf("keys sent together: got %q, none lost", g)
		}
	})
	t.Run("curses", func(t *testing.T) {
		for i := range 5 {
			st := c.on(t).start(map[string]any{"argv": []string{"python3", "-c", cursesFlusher}, "until": "ready", "timeout_ms": 20000})
			if st.Match != "ready" {
				t.Fatalf("start: %+v", st)
			}
			var r SendResult
			c.on(t).call("send_input", map[string]any{"session_id": st.SessionID, "keys": []string{"down", "up", "right", "left", "tab"},
				"enter": true, "keys_apart": true, "until": "^keys .*$", "timeout_ms": 20000}, &r)
			// KEY_DOWN, KEY_UP, KEY_RIGHT, KEY_LEFT, tab, Enter
			if r.Match != "keys 258,259,261,260,9,10" {
				t.Fatalf("round %d: match %q, output %q", i, r.Match, r.Output)
			}
		}
	})
	for i := range 20 {
		t.Run("apart", func(t *testing.T) {
			id := start(t)
			var r SendResult
			c.on(t).call("send_input", map[string]any{"session_id": id, "keys": keys, "enter": true, "keys_apart": true,
				"until": "^done$", "timeout_ms": 20000}, &r)
			if g := got(r.Output); g != want || r.BytesSent != 6 {
				t.Fatalf("round %d: bytes_sent %d, got %q; want %q", i, r.BytesSent, g, want)
			}
		})
	}
}

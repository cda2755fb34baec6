package daemon

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// socketPair is a connected pair of unix stream sockets: the relay's end
// and the daemon's.
func socketPair(t testing.TB) (relay, daemon *net.UnixConn) {
	t.Helper()
	sock := shortDir(t) + "/s"
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan *net.UnixConn, 1)
	go func() {
		c, _ := ln.AcceptUnix()
		acc <- c
	}()
	r, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	d := <-acc
	t.Cleanup(func() { r.Close(); d.Close() })
	return r, d
}

// TestRelay_EndOfInput: the client's input ends, the daemon answers and
// closes: a clean end, never taken for the daemon going away. Looped: the
// daemon's close races the relay's bookkeeping of the end of input.
func TestRelay_EndOfInput(t *testing.T) {
	for i := range 200 {
		relay, d := socketPair(t)
		in := bytes.NewReader([]byte("{\"id\":1}\n"))
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- Relay(in, &out, relay) }()
		// The daemon reads the client's line and the half-close, answers, closes.
		got, err := io.ReadAll(d)
		if err != nil || string(got) != "{\"id\":1}\n" {
			t.Fatalf("round %d: daemon read %q, %v", i, got, err)
		}
		d.Write([]byte("{\"id\":1,\"result\":{}}\n"))
		d.Close()
		if err := <-done; err != nil {
			t.Fatalf("round %d: Relay after the end of input: %v", i, err)
		}
		if out.String() != "{\"id\":1,\"result\":{}}\n" {
			t.Fatalf("round %d: client got %q", i, out.String())
		}
	}
}

func TestRelay_DaemonGone(t *testing.T) {
	relay, d := socketPair(t)
	// A client that keeps its stdin open: a pipe nobody writes.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	done := make(chan error, 1)
	go func() { done <- Relay(r, io.Discard, relay) }()
	d.Close()
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("Relay when the daemon went away: %v, want io.ErrUnexpectedEOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Relay did not return when the daemon went away while stdin stayed open")
	}
}

// TestRelay_SlowClientDoesNotStallInput: a client that does not read its
// stdout must not stop its requests from reaching the daemon.
func TestRelay_SlowClientDoesNotStallInput(t *testing.T) {
	relay, d := socketPair(t)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe() // never read until the end
	defer inW.Close()
	go func() { _ = Relay(inR, outW, relay) }()
	// Fill the client's stdout pipe and the socket buffers.
	go func() {
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for {
			if _, err := d.Write(chunk); err != nil {
				return
			}
		}
	}()
	line := []byte("{\"id\":2}\n")
	if _, err := inW.Write(line); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(line))
	d.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(d, buf); err != nil || !bytes.Equal(buf, line) {
		t.Fatalf("with the client's stdout full the daemon read %q, %v", buf, err)
	}
	d.Close()
	outR.Close()
	inR.Close()
	outW.Close()
}

// TestRelay_DeafClientEndsWhenDaemonCuts: a client that writes requests but
// never reads its stdout, cut off by the daemon, does not keep the relay:
// once a write to the closed socket fails, what the daemon sent has
// relayDrain to be taken, then Relay returns.
func TestRelay_DeafClientEndsWhenDaemonCuts(t *testing.T) {
	defer func(d time.Duration) { relayDrain = d }(relayDrain)
	relayDrain = 200 * time.Millisecond
	relay, d := socketPair(t)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe() // never read
	defer outR.Close()
	defer outW.Close()
	defer inR.Close()
	done := make(chan error, 1)
	go func() { done <- Relay(inR, outW, relay) }()
	// The daemon sends more than the client's pipe and the socket hold,
	// then closes.
	go func() {
		_, _ = d.Write(bytes.Repeat([]byte("x"), 8<<20))
	}()
	time.AfterFunc(100*time.Millisecond, func() { d.Close() })
	// The client keeps writing requests.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer inW.Close()
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if _, err := inW.Write([]byte("{\"id\":1}\n")); err != nil {
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("Relay for a client cut off while not reading returned nil, want the broken pipe or the write deadline")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Relay still runs for a client that does not read, after the daemon closed")
	}
}

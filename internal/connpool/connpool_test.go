package connpool

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

type fakeConn struct {
	key  string
	lost atomic.Bool
}

func alive(c *fakeConn) bool { return !c.lost.Load() }

func TestPool_SharesOneDialPerKey(t *testing.T) {
	p := New(alive)
	var dials atomic.Int32
	release := make(chan struct{})
	dial := func() (*fakeConn, error) {
		dials.Add(1)
		<-release
		return &fakeConn{key: "a"}, nil
	}
	const n = 16
	got := make([]*fakeConn, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := p.Get("a", dial, nil)
			if err != nil {
				t.Error(err)
			}
			got[i] = c
		})
	}
	close(release)
	wg.Wait()
	if d := dials.Load(); d != 1 {
		t.Fatalf("%d dials for one key, want 1", d)
	}
	for i, c := range got {
		if c != got[0] {
			t.Fatalf("caller %d got another connection", i)
		}
	}
}

func TestPool_ReplacesLostConnection(t *testing.T) {
	p := New(alive)
	n := 0
	dial := func() (*fakeConn, error) { n++; return &fakeConn{key: "a"}, nil }
	first, _ := p.Get("a", dial, nil)
	if again, _ := p.Get("a", dial, nil); again != first || n != 1 {
		t.Fatalf("a live connection was not reused (%d dials)", n)
	}
	first.lost.Store(true)
	second, err := p.Get("a", dial, nil)
	if err != nil || second == first || n != 2 {
		t.Fatalf("lost connection not replaced: err %v, %d dials", err, n)
	}
	if all := p.All(); len(all) != 1 || all[0] != second {
		t.Fatalf("All = %v, want only the replacement", all)
	}
}

func TestPool_DialErrorKeepsNothing(t *testing.T) {
	p := New(alive)
	boom := errors.New("refused")
	if _, err := p.Get("a", func() (*fakeConn, error) { return nil, boom }, nil); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the dial's", err)
	}
	if all := p.All(); len(all) != 0 {
		t.Fatalf("All after a failed dial = %v", all)
	}
}

func TestPool_Close(t *testing.T) {
	p := New(alive)
	for _, k := range []string{"b", "a"} {
		if _, err := p.Get(k, func() (*fakeConn, error) { return &fakeConn{key: k}, nil }, nil); err != nil {
			t.Fatal(err)
		}
	}
	if all := p.All(); len(all) != 2 || all[0].key != "a" || all[1].key != "b" {
		t.Fatalf("All not sorted by key: %v", all)
	}
	if got := p.Close(); len(got) != 2 {
		t.Fatalf("Close returned %d connections, want 2", len(got))
	}
	if got := p.Close(); got != nil {
		t.Fatalf("second Close returned %v, want nil", got)
	}
	if _, err := p.Get("a", func() (*fakeConn, error) { t.Fatal("dialed after Close"); return nil, nil }, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v, want ErrClosed", err)
	}
}

// A dial that finishes after Close hands its connection back to be ended.
func TestPool_DialDuringClose(t *testing.T) {
	p := New(alive)
	dialing, finish := make(chan struct{}), make(chan struct{})
	var discarded *fakeConn
	done := make(chan error)
	go func() {
		_, err := p.Get("a", func() (*fakeConn, error) {
			close(dialing)
			<-finish
			return &fakeConn{key: "a"}, nil
		}, func(c *fakeConn) { discarded = c })
		done <- err
	}()
	<-dialing
	if got := p.Close(); len(got) != 0 {
		t.Fatalf("Close returned %v while the only dial was in flight", got)
	}
	close(finish)
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("Get = %v, want ErrClosed", err)
	}
	if discarded == nil || discarded.key != "a" {
		t.Fatal("the connection dialed during Close was not discarded")
	}
}

package session

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend/backendtest"
	"github.com/agentty/agentty/internal/record"
)

// leaseLog records lease changes as the transcript and audit hooks see them.
type leaseLog struct {
	nopRecorder
	mu  sync.Mutex
	got []string
}

func (l *leaseLog) Leased(_, holder string, taken bool, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if taken {
		l.got = append(l.got, "take "+holder)
	} else {
		l.got = append(l.got, "release "+holder+" "+why)
	}
}

func TestLease_RefusesAgentsUntilReleased(t *testing.T) {
	rec := &leaseLog{}
	sm := scripted(t, Config{Recorder: rec, LeaseTimeout: time.Hour}, backendtest.Options{})
	s, _ := sm.start(t, record.ModePTY)
	watch := s.Watch()
	if err := s.Type("attach", []byte("x")); err != nil {
		t.Fatal(err)
	}
	<-watch // a live view learns of the take
	_, err := s.Send(Input{Text: "y"}, time.Now().Add(time.Second))
	var le *LeasedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLeased) || le.Holder != "attach" || le.Timeout != time.Hour {
		t.Fatalf("Send while held = %v", err)
	}
	if h := s.Info().Holder; h != "attach" {
		t.Errorf("Info().Holder = %q", h)
	}
	s.Release("web", "released") // not the holder: nothing changes
	if s.Holder() != "attach" {
		t.Fatal("a non-holder released the lease")
	}
	s.Release("attach", "detached")
	if _, err := s.Send(Input{Text: "y"}, time.Now().Add(time.Second)); err != nil {
		t.Fatalf("Send after release = %v", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if want := "take attach|release attach detached"; joinLease(rec.got) != want {
		t.Errorf("lease records = %q, want %q", joinLease(rec.got), want)
	}
}

// Keys, takes, releases and the idle timer race; the lease must end up
// released exactly once per take and never leak its timer (looped under
// -race).
func TestLease_ConcurrentTakeRelease(t *testing.T) {
	for range 50 {
		rec := &leaseLog{}
		sm := scripted(t, Config{Recorder: rec, LeaseTimeout: time.Millisecond}, backendtest.Options{})
		s, _ := sm.start(t, record.ModePTY)
		var wg sync.WaitGroup
		for _, who := range []string{"attach", "web"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					_ = s.Take(who)
					s.Release(who, "released")
				}
			}()
		}
		wg.Wait()
		s.Release("", "released")
		if s.Holder() != "" {
			t.Fatalf("holder %q after everyone released", s.Holder())
		}
		rec.mu.Lock()
		takes, releases := 0, 0
		for _, g := range rec.got {
			if g[:4] == "take" {
				takes++
			} else {
				releases++
			}
		}
		rec.mu.Unlock()
		if takes != releases {
			t.Fatalf("%d takes, %d releases: %v", takes, releases, rec.got)
		}
		sm.Close()
	}
}

func joinLease(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "|"
		}
		out += x
	}
	return out
}

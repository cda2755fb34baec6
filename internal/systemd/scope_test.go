package systemd

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
)

// fakeManager records StartTransientUnitContext and answers the job with
// result ("" never answers).
type fakeManager struct {
	result   string
	startErr error
	name     string
	mode     string
	props    []sd.Property
	closed   bool
}

func (f *fakeManager) StartTransientUnitContext(_ context.Context, name, mode string, props []sd.Property, ch chan<- string) (int, error) {
	f.name, f.mode, f.props = name, mode, props
	if f.startErr != nil {
		return 0, f.startErr
	}
	if f.result != "" {
		ch <- f.result
	}
	return 1, nil
}

func (f *fakeManager) Close() { f.closed = true }

func TestScope_Delegate(t *testing.T) {
	wantProps := []sd.Property{
		sd.PropDescription("agentty: terminals for AI agents"),
		sd.PropPids(41, 42),
		{Name: "Delegate", Value: dbus.MakeVariant(true)},
		{Name: "CollectMode", Value: dbus.MakeVariant("inactive-or-failed")},
	}
	cases := []struct {
		name    string
		fake    *fakeManager
		dialErr error
		want    string // the result, or a part of the error
		wantErr bool
	}{
		{"done", &fakeManager{result: "done"}, nil, "systemd scope agentty-t.scope", false},
		{"job failed", &fakeManager{result: "failed"}, nil, `asked systemd (unix:path=/fake) for the delegated scope agentty-t.scope: its start job ended "failed"`, true},
		{"refused", &fakeManager{startErr: errors.New("Access denied")}, nil, "asked systemd (unix:path=/fake) for the delegated scope agentty-t.scope: Access denied", true},
		{"no answer", &fakeManager{}, nil, "no answer: context deadline exceeded", true},
		{"no bus", nil, ErrNoBus, "asked systemd for a delegated scope over D-Bus: no systemd user manager found", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &Scope{unit: "agentty-t.scope", dial: func(context.Context) (starter, string, error) {
				if tc.dialErr != nil {
					return nil, "", tc.dialErr
				}
				return tc.fake, "unix:path=/fake", nil
			}}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			got, err := s.Delegate(ctx, []int{41, 42})
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tc.want)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			if tc.fake == nil {
				return
			}
			if tc.fake.name != "agentty-t.scope" || tc.fake.mode != "fail" || !reflect.DeepEqual(tc.fake.props, wantProps) {
				t.Fatalf("started %q mode %q props %+v, want agentty-t.scope, fail, %+v", tc.fake.name, tc.fake.mode, tc.fake.props, wantProps)
			}
			if !tc.fake.closed {
				t.Fatal("the connection was not closed")
			}
		})
	}
}

// TestDialUser_SaysWhatItTried: with no manager to reach, the error names
// every address tried, and with none known it says where it looked.
func TestDialUser_SaysWhatItTried(t *testing.T) {
	rt := t.TempDir()
	if err := os.Mkdir(filepath.Join(rt, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A socket that hangs up at once: not a D-Bus server.
	ln, err := net.Listen("unix", filepath.Join(rt, "systemd", "private"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	vars := func(m map[string]string) env { return env{get: func(k string) string { return m[k] }} }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	_, _, err = dialUser(ctx, vars(nil))
	if !errors.Is(err, ErrNoBus) {
		t.Fatalf("no environment: %v, want ErrNoBus", err)
	}
	_, _, err = dialUser(ctx, vars(map[string]string{"XDG_RUNTIME_DIR": rt, "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + rt + "/nobus"}))
	if err == nil || !strings.Contains(err.Error(), "unix:path="+rt+"/systemd/private: ") || !strings.Contains(err.Error(), "unix:path="+rt+"/nobus: ") {
		t.Fatalf("err %v, want both addresses named", err)
	}
}

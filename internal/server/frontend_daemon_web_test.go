package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/console/api"
	"github.com/agentty/agentty/internal/daemon"
)

// TestDaemon_WebOnDemand: a daemon started without Web opens its web view
// when first asked, once however many ask at the same time (looped: the
// askers race), answers every asker with that one listener and a fresh
// login URL, and closes the listener when it stops.
func TestDaemon_WebOnDemand(t *testing.T) {
	t.Run("concurrent asks share one listener", func(t *testing.T) {
		for range 50 {
			d := startDaemon(t, 0)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			const askers = 8
			replies := make([]daemon.WebReply, askers)
			errs := make([]error, askers)
			var wg sync.WaitGroup
			for i := range askers {
				wg.Go(func() { replies[i], errs[i] = daemon.OpenWeb(ctx, d.socket, "") })
			}
			wg.Wait()
			cancel()
			logins := map[string]bool{}
			for i, r := range replies {
				if errs[i] != nil {
					t.Fatalf("asker %d: %v", i, errs[i])
				}
				if r.URL != replies[0].URL || !strings.HasPrefix(r.URL, "http://127.0.0.1:") || !strings.HasPrefix(r.Login, r.URL+"/login?t=") {
					t.Fatalf("asker %d got %+v, asker 0 %+v: want one loopback listener", i, r, replies[0])
				}
				logins[r.Login] = true
			}
			if len(logins) != askers {
				t.Fatalf("%d distinct login URLs for %d askers", len(logins), askers)
			}
			u, _ := url.Parse(replies[0].URL)
			d.cancel()
			if err := <-d.served; err != nil {
				t.Fatalf("daemon ended with %v", err)
			}
			if c, err := net.Dial("tcp", u.Host); err == nil {
				c.Close()
				t.Fatalf("the web view on %s still listens after the daemon stopped", u.Host)
			}
		}
	})
	t.Run("the login route opens it too", func(t *testing.T) {
		// What agentty web of an earlier version asks.
		d := startDaemon(t, 0)
		c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", d.socket)
		}}}
		resp, err := c.Post("http://agentty"+api.WebLoginPath, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var l api.WebLogin
		if err := json.NewDecoder(resp.Body).Decode(&l); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %v", api.WebLoginPath, resp.StatusCode, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := daemon.OpenWeb(ctx, d.socket, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(l.URL, r.URL+"/login?t=") {
			t.Fatalf("the login route named %s, the web route %s: want one listener", l.URL, r.URL)
		}
	})
	t.Run("beyond loopback refused", func(t *testing.T) {
		d := startDaemon(t, 0)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80", "nonsense"} {
			_, err := daemon.OpenWeb(ctx, d.socket, addr)
			if err == nil || !strings.Contains(err.Error(), "400 Bad Request: the web view opens on a loopback address only") {
				t.Errorf("OpenWeb %q: %v, want refused", addr, err)
			}
		}
	})
}

package secret

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// person performs the person's part: GET the page, POST the form.
func person(t *testing.T, pageURL string, form url.Values) (int, string) {
	t.Helper()
	res, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return res.StatusCode, string(body)
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	m := csrfRe.FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("no csrf in %s", body)
	}
	if !form.Has("csrf") {
		form.Set("csrf", m[1])
	}
	return post(t, pageURL, form, "")
}

func post(t *testing.T, pageURL string, form url.Values, origin string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, pageURL, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, string(body)
}

func wait(t *testing.T, pg *Page) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return pg.Wait(ctx)
}

// TestPages_OneTimeSecret: a page shows who asks, takes one answer, and
// refuses reused, forged, expired, cross-site and token-less posts.
func TestPages_OneTimeSecret(t *testing.T) {
	p := New(Options{})
	t.Cleanup(func() { _ = p.Close() })
	info := Info{Session: "s7", Command: "sudo -k true", Prompt: "[sudo] password for x: "}

	t.Run("answered once", func(t *testing.T) {
		pg, err := p.Open(info)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(pg.URL, "http://127.0.0.1:") || strings.Contains(pg.URL, pg.ID) {
			t.Fatalf("url %s id %s", pg.URL, pg.ID)
		}
		res, _ := http.Get(pg.URL)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for _, want := range []string{"s7", "sudo -k true", "[sudo] password for x:"} {
			if !strings.Contains(string(body), want) {
				t.Fatalf("page lacks %q: %s", want, body)
			}
		}
		if p.Lookup(pg.ID) != pg {
			t.Fatal("lookup by id")
		}
		code, _ := person(t, pg.URL, url.Values{"secret": {"hunter2"}, "action": {"send"}})
		if code != http.StatusOK {
			t.Fatalf("post: %d", code)
		}
		s, err := wait(t, pg)
		if err != nil || string(s) != "hunter2" {
			t.Fatalf("wait: %q %v", s, err)
		}
		if code, _ := person(t, pg.URL, url.Values{"secret": {"again"}}); code != http.StatusGone {
			t.Fatalf("reused token: %d", code)
		}
		if p.Lookup(pg.ID) != pg || pg.Outcome() != nil {
			t.Fatal("an answered page is found until it expires")
		}
		if _, err := wait(t, pg); !errors.Is(err, ErrClosed) {
			t.Fatalf("second wait: %v", err)
		}
	})
	t.Run("declined", func(t *testing.T) {
		pg, _ := p.Open(info)
		person(t, pg.URL, url.Values{"action": {"decline"}})
		if _, err := wait(t, pg); !errors.Is(err, ErrDeclined) {
			t.Fatal(err)
		}
	})
	t.Run("forged token", func(t *testing.T) {
		pg, _ := p.Open(info)
		defer pg.Withdraw()
		forged := pg.URL[:strings.LastIndex(pg.URL, "/")+1] + random()
		if code, _ := person(t, forged, url.Values{"secret": {"x"}}); code != http.StatusGone {
			t.Fatalf("forged: %d", code)
		}
	})
	t.Run("missing or wrong csrf, other origin", func(t *testing.T) {
		pg, _ := p.Open(info)
		defer pg.Withdraw()
		if code, _ := post(t, pg.URL, url.Values{"secret": {"x"}}, ""); code != http.StatusForbidden {
			t.Fatalf("no csrf: %d", code)
		}
		if code, _ := person(t, pg.URL, url.Values{"secret": {"x"}, "csrf": {"nope"}}); code != http.StatusForbidden {
			t.Fatalf("wrong csrf: %d", code)
		}
		if code, _ := post(t, pg.URL, url.Values{"secret": {"x"}, "csrf": {pg.csrf}}, "http://evil.example"); code != http.StatusForbidden {
			t.Fatalf("cross-origin: %d", code)
		}
		select {
		case <-pg.Done():
			t.Fatal("a refused post settled the page")
		default:
		}
	})
	t.Run("foreign Host (DNS rebinding)", func(t *testing.T) {
		pg, _ := p.Open(info)
		defer pg.Withdraw()
		u, _ := url.Parse(pg.URL)
		evil := "evil.example:" + u.Port()
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			form := url.Values{"secret": {"x"}, "csrf": {pg.csrf}}
			req, _ := http.NewRequest(method, pg.URL, strings.NewReader(form.Encode()))
			req.Host = evil
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", "http://"+evil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "DNS rebinding") {
				t.Fatalf("%s with Host %s: %d %q, want 403", method, evil, res.StatusCode, body)
			}
		}
		select {
		case <-pg.Done():
			t.Fatal("a post with a foreign Host settled the page")
		default:
		}
	})
	t.Run("expired", func(t *testing.T) {
		short := New(Options{TTL: 20 * time.Millisecond})
		defer short.Close()
		pg, _ := short.Open(info)
		<-pg.Done()
		if _, err := wait(t, pg); !errors.Is(err, ErrExpired) {
			t.Fatal(err)
		}
		if short.Lookup(pg.ID) != nil {
			t.Fatal("expired page still found")
		}
		if code, _ := person(t, pg.URL, url.Values{"secret": {"x"}}); code != http.StatusGone {
			t.Fatalf("expired: %d", code)
		}
	})
	t.Run("close withdraws", func(t *testing.T) {
		q := New(Options{})
		pg, _ := q.Open(info)
		_ = q.Close()
		_ = q.Close()
		if _, err := wait(t, pg); !errors.Is(err, ErrClosed) {
			t.Fatal(err)
		}
		if _, err := q.Open(info); !errors.Is(err, ErrClosed) {
			t.Fatal(err)
		}
	})
}

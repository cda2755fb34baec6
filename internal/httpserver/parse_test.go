package httpserver

import (
	"strings"
	"testing"
)

func TestRequestIDs_OnlyRequests(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`, []string{"7"}},
		{"string id", `{"jsonrpc":"2.0","id":"a-1","method":"tools/call"}`, []string{`"a-1"`}},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
		{"response", `{"jsonrpc":"2.0","id":3,"result":{}}`, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"x"}`, nil},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"b"}]`, []string{"1", "2"}},
		{"garbage", `{not json`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, id := range requestIDs([]byte(tc.body)) {
				got = append(got, string(id))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("requestIDs = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCanonicalOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://Example.com", "http://example.com:80"},
		{"https://example.com:443/", "https://example.com:443"},
		{"http://[::1]:3000", "http://[::1]:3000"},
		{"ftp://example.com", ""},
		{"example.com", ""},
		{"http://example.com/path", ""},
	} {
		got, err := canonicalOrigin(tc.in)
		if (err != nil) != (tc.want == "") || got != tc.want {
			t.Errorf("canonicalOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestIsLoopbackAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:7777", true}, {"[::1]:7777", true}, {"localhost:0", true}, {"127.5.5.5:1", true},
		{"0.0.0.0:7777", false}, {":7777", false}, {"192.168.1.2:7777", false}, {"example.com:7777", false},
	} {
		got, err := isLoopbackAddr(tc.addr)
		if err != nil || got != tc.want {
			t.Errorf("isLoopbackAddr(%q) = %v, %v; want %v", tc.addr, got, err, tc.want)
		}
	}
	if _, err := isLoopbackAddr("7777"); err == nil {
		t.Error("no error for an address without a port separator")
	}
}

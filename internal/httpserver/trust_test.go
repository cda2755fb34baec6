package httpserver

import "testing"

// A request that arrives whole in the first read proves its connection
// there: with a token, when it carries it; without one, when its body is
// all there. Anything else is left to the handler.
func TestFirstReadProof_Rules(t *testing.T) {
	const get = "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	for _, tc := range []struct {
		name string
		opts Options
		read string
		want bool
	}{
		{"token", Options{Token: "tok"}, get + "Authorization: Bearer tok\r\n\r\n", true},
		{"token, any case", Options{Token: "tok"}, get + "authorization:  bearer tok \r\n\r\n", true},
		{"wrong token", Options{Token: "tok"}, get + "Authorization: Bearer nope\r\n\r\n", false},
		{"no token sent", Options{Token: "tok"}, get + "\r\n", false},
		{"headers not all there", Options{Token: "tok"}, get + "Authorization: Bearer tok\r\n", false},
		{"web only with a token", Options{Token: "tok", WebOnly: true}, get + "Authorization: Bearer tok\r\n\r\n", true},
		{"web only without a token", Options{WebOnly: true}, get + "\r\n", false},
		{"open: no body", Options{}, get + "\r\n", true},
		{"open: whole body", Options{}, "POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", true},
		{"open: part of the body", Options{}, "POST /mcp HTTP/1.1\r\nContent-Length: 100000\r\n\r\n{", false},
		{"open: chunked", Options{}, "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", false},
		{"open: slow headers", Options{}, get + "X-Drip: 1\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proves := firstReadProof(&tc.opts)
			if got := proves != nil && proves([]byte(tc.read)); got != tc.want {
				t.Fatalf("proves %q = %v, want %v", tc.read, got, tc.want)
			}
		})
	}
}

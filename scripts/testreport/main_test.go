package main

import (
	"strings"
	"testing"
)

// TestReport_SkipsFailuresAndPackages feeds events as "go test -json" writes
// them and checks the plain report: package lines, a failing test's output,
// every skip with its reason, and the result.
func TestReport_SkipsFailuresAndPackages(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: sshd missing\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- PASS: TestB (0.00s)\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"=== RUN   TestC\n"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: got 1, want 2\n"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"--- FAIL: TestC (0.00s)\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Test":"TestD","Output":"=== RUN   TestD\n"}`,
		`{"Action":"output","Package":"p","Test":"TestD","Output":"    d_test.go:5: waiting\n"}`,
		`{"Action":"output","Package":"p","Output":"panic: test timed out after 10m0s\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}`,
		`{"Action":"fail","Package":"p"}`,
		`{"Action":"output","Package":"q","Output":"PASS\n"}`,
		`{"Action":"output","Package":"q","Output":"ok  \tq\t0.2s\n"}`,
		`{"Action":"pass","Package":"q"}`,
		`go: not an event`,
	}, "\n")
	var out strings.Builder
	skipped, err := report(strings.NewReader(events), &out)
	want := "--- SKIP: TestA (p): a_test.go:9: sshd missing\n" +
		"    c_test.go:3: got 1, want 2\n--- FAIL: TestC (0.00s)\n" +
		"panic: test timed out after 10m0s\n" +
		"FAIL\tp\t0.1s\n" +
		"--- UNFINISHED: TestD\n    d_test.go:5: waiting\n" +
		"ok  \tq\t0.2s\n" +
		"go: not an event\n" +
		"\n1 tests skipped:\n--- SKIP: TestA (p): a_test.go:9: sshd missing\n"
	if out.String() != want || err != errFailed || skipped != 1 {
		t.Fatalf("report = %q, %d skipped, %v\nwant %q, 1, %v", out.String(), skipped, err, want, errFailed)
	}

	out.Reset()
	if n, err := report(strings.NewReader(`{"Action":"pass","Package":"q"}`), &out); err != nil || n != 0 || out.String() != "" {
		t.Fatalf("passing run: %q, %d skipped, %v; want nothing, 0, nil", out.String(), n, err)
	}
}

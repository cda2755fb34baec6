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
		`{"Action":"output","Package":"r","Output":"FAIL\tr [build failed]\n"}`,
		`{"Action":"fail","Package":"r"}`,
		`go: not an event`,
	}, "\n")
	var out strings.Builder
	n, err := report(strings.NewReader(events), &out)
	want := "--- SKIP: TestA (p): a_test.go:9: sshd missing\n" +
		"    c_test.go:3: got 1, want 2\n--- FAIL: TestC (0.00s)\n" +
		"panic: test timed out after 10m0s\n" +
		"FAIL\tp\t0.1s\n" +
		"--- UNFINISHED: TestD\n    d_test.go:5: waiting\n" +
		"ok  \tq\t0.2s\n" +
		"FAIL\tr [build failed]\n" +
		"go: not an event\n" +
		"\n1 tests skipped:\n--- SKIP: TestA (p): a_test.go:9: sshd missing\n"
	// TestB passed; TestC failed, TestD never ended, r did not build.
	if counts := (tally{passed: 1, failed: 3, skipped: 1}); out.String() != want || err != errFailed || n != counts {
		t.Fatalf("report = %q, %+v, %v\nwant %q, %+v, %v", out.String(), n, err, want, counts, errFailed)
	}

	out.Reset()
	if n, err := report(strings.NewReader(`{"Action":"pass","Package":"q"}`), &out); err != nil || n != (tally{}) || out.String() != "" {
		t.Fatalf("passing run: %q, %+v, %v; want nothing, no tests, nil", out.String(), n, err)
	}
}

// TestRun_EndsWithSummary: the last line is the summary CI reads, after
// the skip list and the -fail-on-skip verdict; a subtest counts as a test.
func TestRun_EndsWithSummary(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"pass","Package":"p","Test":"TestA/one"}`,
		`{"Action":"output","Package":"p","Test":"TestA/two","Output":"    a_test.go:7: no zsh\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA/two"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}`,
		`{"Action":"pass","Package":"p"}`,
	}, "\n")
	const listed = "--- SKIP: TestA/two (p): a_test.go:7: no zsh\nok  \tp\t0.1s\n\n1 tests skipped:\n--- SKIP: TestA/two (p): a_test.go:7: no zsh\n"
	for _, tc := range []struct {
		name       string
		failOnSkip bool
		code       int
		want       string
	}{
		{"skips allowed", false, 0, listed + "3 passed, 0 failed, 1 skipped\n"},
		{"fail on skip", true, 1, listed + "FAIL: 1 tests skipped with -fail-on-skip (CI=true): CI must run every test\n3 passed, 0 failed, 1 skipped\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(strings.NewReader(events), &out, &errOut, tc.failOnSkip)
			if code != tc.code || out.String() != tc.want || errOut.String() != "" {
				t.Errorf("run: exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q", code, out.String(), errOut.String(), tc.code, tc.want)
			}
		})
	}
}

// Command testreport turns "go test -json" into what plain "go test" prints
// (a line per package, the output of failing tests) plus one "--- SKIP"
// line with the reason for every test that could not run, so a run that
// narrowed itself says so, and ends with one line "N passed, N failed,
// N skipped" (what CI reads). scripts/test pipes the suite through it.
//
// Every test counts, subtests included: go test reports each alike, and
// the skip list names subtests too. A test still running when its
// package's binary died counts as failed, and so does a package that
// failed outside any test (a build error, a panic in TestMain).
//
// With -fail-on-skip (scripts/test under CI=true) a skipped test fails the
// run: CI installs everything, so a skip there means coverage was lost.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

func main() {
	failOnSkip := flag.Bool("fail-on-skip", false, "exit 1 when any test was skipped")
	flag.Parse()
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr, *failOnSkip))
}

// run reports the events on r to w, ending with the summary line, and
// returns the exit code.
func run(r io.Reader, w, stderr io.Writer, failOnSkip bool) int {
	n, err := report(r, w)
	code := 0
	if err != nil {
		if err != errFailed {
			fmt.Fprintln(stderr, "testreport:", err)
		}
		code = 1
	}
	if failOnSkip && n.skipped > 0 {
		fmt.Fprintf(w, "FAIL: %d tests skipped with -fail-on-skip (CI=true): CI must run every test\n", n.skipped)
		code = 1
	}
	fmt.Fprintln(w, n)
	return code
}

// tally counts tests by result.
type tally struct{ passed, failed, skipped int }

// String is the summary line.
func (n tally) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", n.passed, n.failed, n.skipped)
}

// event is one line of "go test -json" (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// errFailed is returned when any test, package or build failed.
var errFailed = errors.New("tests failed")

// report copies events from r to w as described in the package comment
// (all but the summary line) and returns the counts.
func report(r io.Reader, w io.Writer) (n tally, err error) {
	out := map[string][]string{} // package + "\x00" + test → its output lines so far
	var skips []string
	failed := false
	testFailed := map[string]bool{} // packages with a failed or unfinished test
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // not an event: go's own messages
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" && e.Output != "FAIL\n" {
				fmt.Fprint(w, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			failed = true
			// Tests still running when the binary died (a panic in
			// another goroutine, the -timeout): their output so far.
			for _, k := range slices.Sorted(maps.Keys(out)) {
				if pkg, test, _ := strings.Cut(k, "\x00"); pkg == e.Package {
					fmt.Fprintf(w, "--- UNFINISHED: %s\n", test)
					printOutput(w, out[k])
					delete(out, k)
					n.failed++
					testFailed[pkg] = true
				}
			}
			if !testFailed[e.Package] {
				n.failed++
			}
		case e.Test == "":
		case e.Action == "output":
			out[key] = append(out[key], e.Output)
		case e.Action == "fail":
			failed = true
			printOutput(w, out[key])
			delete(out, key)
			n.failed++
			testFailed[e.Package] = true
		case e.Action == "skip":
			line := fmt.Sprintf("--- SKIP: %s (%s): %s", e.Test, e.Package, skipReason(out[key]))
			fmt.Fprintln(w, line)
			skips = append(skips, line)
			delete(out, key)
			n.skipped++
		case e.Action == "pass":
			delete(out, key)
			n.passed++
		}
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	if len(skips) > 0 {
		fmt.Fprintf(w, "\n%d tests skipped:\n%s\n", len(skips), strings.Join(skips, "\n"))
	}
	if failed {
		return n, errFailed
	}
	return n, nil
}

// printOutput prints a test's output as plain go test does, without the
// "=== RUN" bookkeeping lines.
func printOutput(w io.Writer, lines []string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			fmt.Fprint(w, l)
		}
	}
}

// skipReason is what the test logged before skipping (its t.Skip message),
// on one line.
func skipReason(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " / ")
}

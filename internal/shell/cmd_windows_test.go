package shell

// cmd.exe's integration run for real, over pipes (a pseudo console adds
// nothing to what is tested here: the marks, the status and the cwd). It
// runs on Windows, and under Wine's cmd.exe.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
)

func TestCmdIntegration_MarksStatusCwd(t *testing.T) {
	cmdExe, err := exec.LookPath("cmd.exe")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its RemoveAll fails under Wine (no POSIX delete
	// semantics); what the test makes it removes one by one.
	dir, err := os.MkdirTemp("", "agentty-cmdtest-")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a&b (c)")
	t.Cleanup(func() {
		for _, p := range []string{filepath.Join(dir, "init.cmd"), sub, dir} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Error(err)
			}
		}
	})
	const nonce = "n0nce"
	argv, _, err := writeRC(context.Background(), localFiles{}, Cmd, cmdExe, dir, nonce, true, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var out bytes.Buffer
	changed := make(chan struct{}, 1)
	sink := func(_ outlog.Stream, p []byte) {
		mu.Lock()
		out.Write(p)
		mu.Unlock()
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	p, err := backend.StartPipe(backend.Spec{Path: cmdExe, Argv: argv, Dir: dir, Env: os.Environ(), MergeStderr: true}, nil, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	defer p.Terminate(context.Background(), 0)
	re := markRE(nonce)
	// waitD waits for the D mark of command id and returns the marks.
	waitD := func(id int) []mark {
		t.Helper()
		deadline := time.NewTimer(30 * time.Second)
		defer deadline.Stop()
		for {
			mu.Lock()
			ms, _ := findMarks(re, out.Bytes(), 0, false)
			mu.Unlock()
			for _, m := range ms {
				if m.kind == markD && m.id == id {
					return ms
				}
			}
			select {
			case <-changed:
			case <-deadline.C:
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("no D mark of command %d in %q", id, out.String())
			}
		}
	}
	first := waitD(0)
	if got := driveCwd(first[0].cwd); !strings.EqualFold(got, dir) {
		t.Fatalf("first prompt's cwd %q, want %q", got, dir)
	}
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		cmd, out string
		status   int
		cwd      string
		wineBug  bool // Wine's cmd sets ERRORLEVEL 1 after a call whose batch ran exit /b 3
	}{
		{"echo hi", "hi\r\n", 0, dir, false},
		{"exit /b 3", "", 3, dir, true},
		{"dir \"" + filepath.Join(dir, "none") + "\" >nul 2>nul", "", 1, dir, false},
		{"echo one\necho two", "one\r\ntwo\r\n", 0, dir, false},
		{"cd /d \"" + sub + "\"", "", 0, sub, false},
		{"echo here", "here\r\n", 0, sub, false},
	} {
		id := i + 1
		t.Run(c.cmd, func(t *testing.T) {
			body, err := localFiles{}.create(context.Background(), windowsCommandName(dir, ".cmd"), []byte(cmdBody(c.cmd)))
			if err != nil {
				t.Fatal(err)
			}
			wrapper, err := localFiles{}.create(context.Background(), windowsCommandName(dir, ".cmd"), []byte(cmdCommand(nonce, id, body)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Write([]byte(cmdQuote(wrapper)+"\r\n"), time.Now().Add(10*time.Second)); err != nil {
				t.Fatal(err)
			}
			ms := waitD(id)
			var cm, dm *mark
			for k := range ms {
				if ms[k].id == id && ms[k].kind == markC {
					cm = &ms[k]
				}
				if ms[k].id == id && ms[k].kind == markD {
					dm = &ms[k]
				}
			}
			if cm == nil {
				t.Fatalf("no C mark of command %d", id)
			}
			mu.Lock()
			got := string(out.Bytes()[cm.end:dm.start])
			mu.Unlock()
			if c.wineBug && underWine() {
				c.status = 1
			}
			if got != c.out || dm.status != c.status || !strings.EqualFold(driveCwd(dm.cwd), c.cwd) {
				t.Fatalf("output %q status %d cwd %q; want %q, %d, %q", got, dm.status, driveCwd(dm.cwd), c.out, c.status, c.cwd)
			}
			// Its last line read, the wrapper may go, as agentty removes it.
			for _, f := range []string{wrapper, body} {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// underWine: Wine's ntdll exports wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shRemote runs the remote script with this machine's /bin/sh, as
// sshbackend.Pool.Exec runs it on the host: args as positional parameters,
// stdin as input, stdout returned, a failure carrying stderr.
type shRemote struct{}

func (shRemote) Exec(ctx context.Context, host string, accept bool, script string, args []string, stdin []byte) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, "agentty"}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("remote command failed on %s (%v): %s", host, err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// writers are the two ways to write; every case runs through both and
// must leave the same file behind.
var writers = []struct {
	name  string
	write func(p string, data []byte, o Options) (Result, error)
}{
	{"local", Write},
	{"remote", func(p string, data []byte, o Options) (Result, error) {
		return WriteRemote(context.Background(), shRemote{}, "test@host", p, data, o)
	}},
}

func TestWrite_Modes(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup prepares dir and returns the path to write.
		setup   func(t *testing.T, dir string) string
		data    string
		o       Options
		want    Result // Path is filled in from setup
		content string
		perm    fs.FileMode
		// real is where the bytes land when it is not the path (a symlink).
		real string
	}{
		{"create", func(t *testing.T, dir string) string { return filepath.Join(dir, "new.txt") },
			"hello\n", Options{}, Result{Bytes: 6, Size: 6, Created: true}, "hello\n", 0o644, ""},
		{"replace keeps mode", func(t *testing.T, dir string) string {
			return mkfile(t, filepath.Join(dir, "run.sh"), "old content\n", 0o750)
		}, "new\n", Options{}, Result{Bytes: 4, Size: 4}, "new\n", 0o750, ""},
		{"append", func(t *testing.T, dir string) string {
			return mkfile(t, filepath.Join(dir, "log"), "one\n", 0o600)
		}, "two\n", Options{Append: true}, Result{Bytes: 4, Size: 8, Appended: true}, "one\ntwo\n", 0o600, ""},
		{"append creates", func(t *testing.T, dir string) string { return filepath.Join(dir, "fresh") },
			"x", Options{Append: true}, Result{Bytes: 1, Size: 1, Appended: true, Created: true}, "x", 0o644, ""},
		{"make dirs", func(t *testing.T, dir string) string { return filepath.Join(dir, "a", "b", "c.txt") },
			"deep", Options{MakeDirs: true}, Result{Bytes: 4, Size: 4, Created: true}, "deep", 0o644, ""},
		{"symlink target replaced", func(t *testing.T, dir string) string {
			mkfile(t, filepath.Join(dir, "target"), "before", 0o640)
			link := filepath.Join(dir, "link")
			if err := os.Symlink("target", link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "after!", Options{}, Result{Bytes: 6, Size: 6}, "after!", 0o640, "target"},
		{"empty content", func(t *testing.T, dir string) string {
			return mkfile(t, filepath.Join(dir, "f"), "something", 0o644)
		}, "", Options{}, Result{}, "", 0o644, ""},
	} {
		for _, w := range writers {
			t.Run(tc.name+"/"+w.name, func(t *testing.T) {
				dir := t.TempDir()
				p := tc.setup(t, dir)
				got, err := w.write(p, []byte(tc.data), tc.o)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want
				want.Path = p
				if got != want {
					t.Fatalf("result %+v, want %+v", got, want)
				}
				real := p
				if tc.real != "" {
					real = filepath.Join(dir, tc.real)
					if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
						t.Fatalf("the symlink itself was replaced: %v %v", fi.Mode(), err)
					}
				}
				b, err := os.ReadFile(real)
				if err != nil || string(b) != tc.content {
					t.Fatalf("content %q, %v; want %q", b, err, tc.content)
				}
				if fi, err := os.Stat(real); err != nil || fi.Mode().Perm() != tc.perm {
					t.Fatalf("mode %v, %v; want %v", fi.Mode().Perm(), err, tc.perm)
				}
				noTemps(t, filepath.Dir(real))
			})
		}
	}
}

// Refusals leave nothing behind: locally they are *PathError values the
// caller words; remotely the script's own words come back.
func TestWrite_Refusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    func(t *testing.T, dir string) (p, errPath string)
		kind     error
		remoteIn string // in the remote error; %s is errPath
	}{
		{"missing directory", func(t *testing.T, dir string) (string, string) {
			return filepath.Join(dir, "no", "such", "f"), filepath.Join(dir, "no", "such")
		}, ErrNoDir, "directory %s does not exist; pass make_dirs=true to create it"},
		{"parent is a file", func(t *testing.T, dir string) (string, string) {
			f := mkfile(t, filepath.Join(dir, "plain"), "x", 0o644)
			return filepath.Join(f, "child"), f
		}, ErrNotDir, "directory %s does not exist"},
		{"target is a directory", func(t *testing.T, dir string) (string, string) {
			d := filepath.Join(dir, "sub")
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			return d, d
		}, ErrIsDir, "%s is a directory"},
	} {
		for _, w := range writers {
			t.Run(tc.name+"/"+w.name, func(t *testing.T) {
				dir := t.TempDir()
				p, errPath := tc.setup(t, dir)
				before := listing(t, dir)
				_, err := w.write(p, []byte("data"), Options{})
				if err == nil {
					t.Fatal("write succeeded")
				}
				if w.name == "local" {
					var pe *PathError
					if !errors.As(err, &pe) || !errors.Is(err, tc.kind) || pe.Path != errPath {
						t.Fatalf("error %v (%T), want a PathError %v for %s", err, err, tc.kind, errPath)
					}
				} else if want := fmt.Sprintf(tc.remoteIn, errPath); !strings.Contains(err.Error(), want) {
					t.Fatalf("error %q does not say %q", err, want)
				}
				if after := listing(t, dir); after != before {
					t.Fatalf("directory changed:\n%s\nwas\n%s", after, before)
				}
			})
		}
	}
}

func mkfile(t *testing.T, p, content string, perm fs.FileMode) string {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

// noTemps fails if a temporary file of a replace is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".agentty-") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

// listing is every path under dir with its size, one per line.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v\n", strings.TrimPrefix(p, dir), fi.Size(), fi.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

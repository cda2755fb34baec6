package shell

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// shExec runs the remote scripts with this machine's /bin/sh, as sshd
// would on the remote.
type shExec struct{}

func (shExec) Exec(ctx context.Context, _ string, _ bool, script string, args []string, stdin []byte) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, "agentty"}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	return cmd.Output()
}

// The remote create never replaces an existing file and makes new ones
// private with exactly the given bytes.
func TestRemoteFiles_CreateExclusivePrivate(t *testing.T) {
	f := remoteFiles{r: shExec{}, host: "test"}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "cmd")
	body := []byte("line 1\n'quoted' $x `y`\nno newline")
	got, err := f.create(ctx, p, body)
	if err != nil || got != p {
		t.Fatalf("create: %q %v", got, err)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if !bytes.Equal(data, body) || fi.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v", data, fi.Mode().Perm())
	}
	if _, err := f.create(ctx, p, []byte("other")); err == nil {
		t.Fatal("create over an existing file succeeded")
	}
	if data, _ := os.ReadFile(p); !bytes.Equal(data, body) {
		t.Fatalf("existing file changed: %q", data)
	}
	f.remove(p)
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("remove: %v", err)
	}
}

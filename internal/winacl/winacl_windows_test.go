//go:build windows

package winacl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

func daclOf(t *testing.T, path string) string {
	t.Helper()
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	return sd.String()
}

func TestMakePrivate_DACL(t *testing.T) {
	user, err := UserSID()
	if err != nil {
		t.Fatal(err)
	}
	if !ValidSID(user) {
		t.Fatalf("UserSID = %q, not a SID", user)
	}
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(dir); err != nil {
		t.Fatal(err)
	}
	t.Run("directory: protected, the user and SYSTEM only", func(t *testing.T) {
		want := "D:P(A;OICI;FA;;;" + user + ")(A;OICI;FA;;;SY)"
		if got := daclOf(t, dir); got != want {
			t.Fatalf("DACL = %q, want %q", got, want)
		}
	})
	t.Run("a file made inside inherits the same two entries", func(t *testing.T) {
		f := filepath.Join(dir, "f")
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		got := daclOf(t, f)
		for _, want := range []string{"(A;ID;FA;;;" + user + ")", "(A;ID;FA;;;SY)"} {
			if !strings.Contains(got, want) {
				t.Fatalf("file DACL = %q, want it to hold %q", got, want)
			}
		}
		if n := strings.Count(got, "(A;"); n != 2 {
			t.Fatalf("file DACL = %q: %d allow entries, want 2", got, n)
		}
	})
	t.Run("owned by this user", func(t *testing.T) {
		if err := CheckOwned(dir); err != nil {
			t.Fatal(err)
		}
	})
}

func TestProcessUserSID_Self(t *testing.T) {
	user, err := UserSID()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ProcessUserSID(os.Getpid())
	if err != nil || !SameSID(got, user) {
		t.Fatalf("ProcessUserSID(self) = %q, %v; want %q", got, err, user)
	}
}

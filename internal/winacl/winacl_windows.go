//go:build windows

package winacl

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// UserSID is the SID of the user this process runs as.
func UserSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("winacl: this process's user: %w", err)
	}
	return u.User.Sid.String(), nil
}

// Elevated reports whether this process runs with an elevated token.
func Elevated() bool { return windows.GetCurrentProcessToken().IsElevated() }

// ProcessUserSID is the SID of the user process pid runs as.
func ProcessUserSID(pid int) (string, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return "", fmt.Errorf("winacl: open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return "", fmt.Errorf("winacl: token of process %d: %w", pid, err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("winacl: user of process %d: %w", pid, err)
	}
	return u.User.Sid.String(), nil
}

// Owner is the SID of path's owner.
func Owner(path string) (string, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return "", fmt.Errorf("winacl: owner of %s: %w", path, err)
	}
	o, _, err := sd.Owner()
	if err != nil {
		return "", fmt.Errorf("winacl: owner of %s: %w", path, err)
	}
	return o.String(), nil
}

// MakePrivate replaces path's DACL with PrivateSDDL for this user,
// protected from inheritance; files and directories made inside later
// inherit it.
func MakePrivate(path string) error {
	user, err := UserSID()
	if err != nil {
		return err
	}
	sddl, err := PrivateSDDL(user)
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		return fmt.Errorf("winacl: %s: %w", sddl, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("winacl: %s: %w", sddl, err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		return fmt.Errorf("winacl: make %s private: %w", path, err)
	}
	return nil
}

// CheckOwned refuses path when it belongs to another user.
func CheckOwned(path string) error {
	user, err := UserSID()
	if err != nil {
		return err
	}
	owner, err := Owner(path)
	if err != nil {
		return err
	}
	if !OwnedBy(owner, user, Elevated()) {
		return fmt.Errorf("%s belongs to %s, not to this user (%s)", path, owner, user)
	}
	return nil
}

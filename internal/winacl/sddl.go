package winacl

import (
	"fmt"
	"strings"
)

// systemSID is LocalSystem's well-known SID.
const systemSID = "S-1-5-18"

// PrivateSDDL is the security descriptor, in SDDL, that makes an object
// private to the user whose SID is user: "P" protects the DACL from the
// parent's inheritable entries (else the everyone-can-read entries of a
// profile's parent would flow in); "OICI" hands the same two entries to
// every file and directory created inside, so a socket or database made
// later is private from its first byte. FA is full access.
func PrivateSDDL(user string) (string, error) {
	if !ValidSID(user) {
		return "", fmt.Errorf("winacl: %q is not a SID", user)
	}
	return "D:P(A;OICI;FA;;;" + user + ")(A;OICI;FA;;;" + systemSID + ")", nil
}

// ValidSID reports whether s has a SID's string form: S-1- (either case), an authority,
// then one or more sub-authorities, all decimal (what ConvertSidToStringSid
// writes). Nothing else may be put into an SDDL string: a stray ")" or ";"
// would change what it grants.
func ValidSID(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) < 4 || parts[0] != "S" && parts[0] != "s" || parts[1] != "1" {
		return false
	}
	for _, p := range parts[2:] {
		if p == "" || len(p) > 10 {
			return false
		}
		for _, c := range p {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// SameSID reports whether a and b name the same account. The string form
// is canonical apart from the letter's case ("s-1-5-..." parses too).
func SameSID(a, b string) bool {
	return a != "" && ValidSID(a) && ValidSID(b) && strings.EqualFold(a, b)
}

// administratorsSID is BUILTIN\Administrators: an elevated process's
// token makes it the owner of what it creates, not the user.
const administratorsSID = "S-1-5-32-544"

// OwnedBy reports whether an object whose owner is owner belongs to user:
// its SID, or Administrators when the process runs elevated (then the
// objects it created itself carry that owner).
func OwnedBy(owner, user string, elevated bool) bool {
	return SameSID(owner, user) || elevated && SameSID(owner, administratorsSID)
}

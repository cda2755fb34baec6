package winacl

import "testing"

func TestPrivateSDDL_Grants(t *testing.T) {
	t.Run("user and system, protected, inherited by children", func(t *testing.T) {
		got, err := PrivateSDDL("S-1-5-21-1004336348-1177238915-682003330-1001")
		if err != nil {
			t.Fatal(err)
		}
		want := "D:P(A;OICI;FA;;;S-1-5-21-1004336348-1177238915-682003330-1001)(A;OICI;FA;;;S-1-5-18)"
		if got != want {
			t.Fatalf("PrivateSDDL = %q, want %q", got, want)
		}
	})
	for _, bad := range []string{"", "S-1-5", "S-1-5-21)(A;;FA;;;WD", "WD", "S-1-5-21-x", "S-2-5-21-1", "S-1-5--1", "S-1-5-12345678901"} {
		t.Run("refuses "+bad, func(t *testing.T) {
			if got, err := PrivateSDDL(bad); err == nil {
				t.Fatalf("PrivateSDDL(%q) = %q, want an error", bad, got)
			}
		})
	}
}

func TestSameSID_Compare(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"S-1-5-21-1-2-3-1001", "S-1-5-21-1-2-3-1001", true},
		{"S-1-5-21-1-2-3-1001", "s-1-5-21-1-2-3-1001", true},
		{"S-1-5-21-1-2-3-1001", "S-1-5-21-1-2-3-1002", false},
		{"S-1-5-21-1-2-3-1001", "S-1-5-21-1-2-3-10010", false},
		{"S-1-5-18", "S-1-5-21-1-2-3-1001", false},
		{"", "", false},
		{"garbage", "garbage", false},
	}
	for _, c := range cases {
		t.Run(c.a+"="+c.b, func(t *testing.T) {
			if got := SameSID(c.a, c.b); got != c.want {
				t.Fatalf("SameSID(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}

func TestOwnedBy_ElevatedAdministrators(t *testing.T) {
	const user = "S-1-5-21-1-2-3-1001"
	cases := []struct {
		name, owner string
		elevated    bool
		want        bool
	}{
		{"the user", user, false, true},
		{"another user", "S-1-5-21-1-2-3-1002", false, false},
		{"administrators, not elevated", "S-1-5-32-544", false, false},
		{"administrators, elevated", "S-1-5-32-544", true, true},
		{"system, elevated", "S-1-5-18", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OwnedBy(c.owner, user, c.elevated); got != c.want {
				t.Fatalf("OwnedBy(%q, user, %v) = %v, want %v", c.owner, c.elevated, got, c.want)
			}
		})
	}
}

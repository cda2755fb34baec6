package peers

import "testing"

func TestCred_SameUser(t *testing.T) {
	const sid = "S-1-5-21-1-2-3-1001"
	cases := []struct {
		name string
		a, b Cred
		want bool
	}{
		{"same uid", Cred{UID: 1000, PID: 1}, Cred{UID: 1000, PID: 2}, true},
		{"other uid", Cred{UID: 1000}, Cred{UID: 0}, false},
		{"same sid", Cred{UID: -1, SID: sid}, Cred{UID: -1, SID: "s-1-5-21-1-2-3-1001"}, true},
		{"other sid", Cred{UID: -1, SID: sid}, Cred{UID: -1, SID: "S-1-5-21-1-2-3-1002"}, false},
		{"sid against none: no uid match counts", Cred{UID: -1, SID: sid}, Cred{UID: -1}, false},
		{"unparsable sids", Cred{UID: -1, SID: "x"}, Cred{UID: -1, SID: "x"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.SameUser(c.b); got != c.want {
				t.Fatalf("%+v.SameUser(%+v) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}

package contain

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestProfile_Tighten(t *testing.T) {
	base := Profile{
		Limits:  Limits{AddressSpace: 1 << 30, CPUSeconds: 60},
		Sandbox: Sandbox{Filesystem: FSReadOnly, Write: []string{"/srv/work", "/tmp"}},
	}
	cases := []struct {
		name  string
		call  Profile
		want  Profile
		error string
	}{
		{"nothing asked", Profile{}, base, ""},
		{"lower limits and new ones", Profile{Limits: Limits{AddressSpace: 1 << 20, FileSize: 4096, NoCoreDumps: true}},
			Profile{Limits: Limits{AddressSpace: 1 << 20, CPUSeconds: 60, FileSize: 4096, NoCoreDumps: true}, Sandbox: base.Sandbox}, ""},
		{"higher limit", Profile{Limits: Limits{CPUSeconds: 61}}, base, "cpu_seconds 61 is above the configured 60"},
		{"negative", Profile{Limits: Limits{OpenFiles: -1}}, base, "open_files must not be negative"},
		{"listed is tighter", Profile{Sandbox: Sandbox{Filesystem: FSListed, Read: []string{"/home/me/src"}}},
			Profile{Limits: base.Limits, Sandbox: Sandbox{Filesystem: FSListed, Read: []string{"/home/me/src"}, Write: base.Sandbox.Write}}, ""},
		{"write inside configured", Profile{Sandbox: Sandbox{Write: []string{"/srv/work/a"}, NoNetwork: true, LandlockABI: 3}},
			Profile{Limits: base.Limits, Sandbox: Sandbox{Filesystem: FSReadOnly, Write: []string{"/srv/work/a"}, NoNetwork: true, LandlockABI: 3}}, ""},
		{"write outside configured", Profile{Sandbox: Sandbox{Write: []string{"/srv/workshop"}}}, base,
			"write path /srv/workshop is not inside the configured write paths"},
		{"unknown mode", Profile{Sandbox: Sandbox{Filesystem: "none"}}, base, `filesystem must be "readonly" or "listed"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := base.Tighten(tc.call)
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Fatalf("err = %v, want %q", err, tc.error)
				}
				if strings.Contains(tc.error, "configured") && !errors.Is(err, ErrLooser) {
					t.Fatalf("%v is not ErrLooser", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v\nwant %+v", got, err, tc.want)
			}
		})
	}
	// Path lists the effective mode would ignore are refused, naming the
	// modes to ask for; a configured mode applies a call's lists.
	for _, tc := range []struct {
		name       string
		base, call Sandbox
		want       string
	}{
		{"write without a mode", Sandbox{}, Sandbox{Write: []string{"/srv/work"}},
			`write paths restrict nothing without one; ask for "filesystem": "readonly"`},
		{"empty write list without a mode", Sandbox{}, Sandbox{Write: []string{}, NoNetwork: true}, "write paths restrict nothing"},
		{"read without a mode", Sandbox{}, Sandbox{Read: []string{"/data"}}, `or "listed"`},
		{"read in readonly", Sandbox{}, Sandbox{Filesystem: FSReadOnly, Read: []string{"/data"}},
			`read paths restrict nothing in filesystem "readonly", which reads everywhere; ask for "filesystem": "listed"`},
		{"read in configured readonly", Sandbox{Filesystem: FSReadOnly}, Sandbox{Read: []string{"/data"}}, `ask for "filesystem": "listed"`},
		{"write in configured readonly", Sandbox{Filesystem: FSReadOnly}, Sandbox{Write: []string{}}, ""},
		{"read in listed", Sandbox{}, Sandbox{Filesystem: FSListed, Read: []string{"/data"}, Write: []string{"/srv"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Profile{Sandbox: tc.base}.Tighten(Profile{Sandbox: tc.call})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrNoMode) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrNoMode with %q", err, tc.want)
			}
		})
	}
	// A listed sandbox cannot be loosened to read-only, nor read more.
	listed := Profile{Sandbox: Sandbox{Filesystem: FSListed, Read: []string{"/data"}}}
	if _, err := listed.Tighten(Profile{Sandbox: Sandbox{Filesystem: FSReadOnly}}); !errors.Is(err, ErrLooser) {
		t.Fatalf("listed -> readonly: %v", err)
	}
	if _, err := listed.Tighten(Profile{Sandbox: Sandbox{Read: []string{"/etc/ssh"}}}); !errors.Is(err, ErrLooser) {
		t.Fatalf("listed reading more: %v", err)
	}
}

func TestSupport_Check(t *testing.T) {
	s := Support{Cgroup: true, Controllers: []string{"pids"}, LandlockABI: 7, Rlimits: true, NetNSNote: "no netns here"}
	cases := []struct {
		p       Profile
		feature string
		reason  string
	}{
		{Profile{Limits: Limits{PidsMax: 10, AddressSpace: 1}}, "", ""},
		{Profile{Limits: Limits{MemoryMax: 1}}, "the cgroup memory controller", "not enabled"},
		{Profile{Sandbox: Sandbox{Filesystem: FSReadOnly, LandlockABI: 7}}, "", ""},
		{Profile{Sandbox: Sandbox{LandlockABI: 8}}, "landlock", "Landlock ABI 8 needed, the kernel offers ABI 7"},
		{Profile{Sandbox: Sandbox{NoNetwork: true}}, "network namespace", "no netns here"},
		{Profile{RequireCgroup: true}, "", ""},
	}
	for _, tc := range cases {
		err := s.Check(tc.p)
		var ue *UnavailableError
		if tc.feature == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.p, err)
			}
			continue
		}
		if !errors.As(err, &ue) || ue.Feature != tc.feature || !strings.Contains(ue.Reason, tc.reason) {
			t.Errorf("%+v: %v, want %s: %s", tc.p, err, tc.feature, tc.reason)
		}
	}
	if err := (Support{CgroupReason: "off"}).Check(Profile{RequireCgroup: true}); err == nil || err.Error() != "cgroup is required but unavailable: off" {
		t.Errorf("require cgroup: %v", err)
	}
}

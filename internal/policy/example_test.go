package policy_test

import (
	"fmt"
	"strings"

	"github.com/agentty/agentty/internal/policy"
)

// A tool that runs commands checks them first and returns the refusal as
// its tool error; Confirm means a human must agree first (see
// mcpserver's decide).
func ExamplePolicy_CheckScript() {
	p, err := policy.New(policy.Options{Rules: policy.Rules{Allow: []string{"git", "ls"}, Confirm: []string{"git"}},
		PathEnv: "/usr/bin:/bin"})
	if err != nil {
		panic(err)
	}
	for _, cmd := range []string{"ls -l | ls", "git push", "ls $(rm -rf x)", "env rm x"} {
		d := p.CheckScript(cmd, "/tmp")
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-16s %s %s", cmd, d.Verdict, d.Rule)))
	}
	fmt.Println(p.CheckArgv([]string{"/bin/rm", "x"}, "/tmp").Err())
	fmt.Println(p.CheckArgv([]string{"/opt/tools/rm", "x"}, "/tmp").Err())
	// Output:
	// ls -l | ls       allow
	// git push         confirm confirm
	// ls $(rm -rf x)   refuse allow
	// env rm x         refuse allow
	// refused by policy: /bin/rm is not on the allow list [git ls]; to allow it, add "rm" (any rm in a PATH directory) or "/bin/rm" to allow (rule allow)
	// refused by policy: /opt/tools/rm is not on the allow list [git ls]; to allow it, add "/opt/tools/rm" to allow (a bare "rm" matches only files in PATH directories) (rule allow)
}

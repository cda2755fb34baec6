package gate

import (
	"errors"
	"reflect"
	"testing"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// TestJudgeInput_StateOnlyWithShell: Input asks for the session's state
// (a probe of its processes) only when a shell runs in it, or it is
// remote. That holds only while judgeInput decides the same for every
// state of a local session without a shell; and with one, the state must
// be read, which runsShell says.
func TestJudgeInput_StateOnlyWithShell(t *testing.T) {
	inputs := []Input{
		{Text: "rm -rf /", Enter: true},
		{Text: "a\nb\nc\n"},
		{Text: "partial"},
		{Keys: []string{"up"}, Enter: true},
		{Text: "\x12x", Enter: true},
	}
	states := []record.State{record.StateRunning, record.StateAwaitingInput, record.StateAwaitingPassword}
	views := map[string]inputView{
		"cat alone":   {fg: catAlone},
		"cat on pipe": {fg: catAlone, pipe: true},
		"unreadable":  {fgErr: errors.New("gone")},
		"exited":      {fgErr: errors.New("gone"), exited: true},
	}
	for name, v := range views {
		if runsShell(v) {
			t.Fatalf("%s: runsShell = true", name)
		}
		for _, on := range []bool{false, true} {
			for _, in := range inputs {
				v.state = states[0]
				first := judgeInput(v, in, on)
				for _, st := range states[1:] {
					v.state = st
					if got := judgeInput(v, in, on); !reflect.DeepEqual(got, first) {
						t.Errorf("%s, policy %v, %+v: state %s gives %+v, %s gives %+v", name, on, in, states[0], first, st, got)
					}
				}
			}
		}
	}
	for name, fg := range map[string]session.Foreground{"at bash": atBash, "python under bash": pyUnder, "bash below sh": bashBelow, "nested pipe": nestedPipe} {
		if !runsShell(inputView{fg: fg}) {
			t.Errorf("%s: runsShell = false", name)
		}
	}
}

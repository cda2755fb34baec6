package bench

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// print writes the verdict table, one row per case and verdict.
func (v *Verdicts) print(w io.Writer) {
	fmt.Fprintf(w, "awaiting-input verdicts, %d runs per case; machine load %.1f → %.1f\n\n", v.N, v.LoadBefore, v.LoadAfter)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tverdict\tright\tfalse awaiting\tmissed\tprompt→verdict p50 ms\tp99 ms\t")
	for _, r := range v.Rows {
		p50, p99 := "—", "—"
		if r.Prompt && r.Latency.Count > 0 {
			p50, p99 = fmt.Sprintf("%.1f", r.Latency.MedianMs), fmt.Sprintf("%.1f", r.Latency.P99Ms)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%d\t%s\t%s\t\n", r.Case, r.Verdict, r.Right, r.Runs, r.FalseAwaiting, r.Missed, p50, p99)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

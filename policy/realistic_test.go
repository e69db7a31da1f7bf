package policy

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/corpus"
)

// maxRealisticRefused is the share of realistic reads read-only mode may refuse (issue 10): a
// mode that refuses more gets switched off.
const maxRealisticRefused = 0.05

// needsProgram marks a comment group of realistic rows that need a program not yet on the
// allowlist (another change adds them): they are judged and reported, and kept out of the
// threshold until that change lands.
const needsProgram = "needs-program"

// TestRealisticReads judges every row of fixtures/corpus/realistic, commands an agent exploring a
// repository runs, one file per family, and reports the refusal rate per family as a user with
// the OS sandbox sees it: a row admitted only for the sandbox (a program whose rule is
// SandboxOnly, which this judge, without a sandbox, refuses for that reason alone) counts as
// admitted, in a column of its own, and the policy-only rate, which counts it refused, is
// printed beside. It fails if more than maxRealisticRefused of the rows outside needs-program
// groups are refused with the sandbox. Unlike the allow corpus, a row here may be refused: the
// corpus measures the mode, it does not pin it. Every row it admits runs in
// TestExecuteAdmittedRows, the sandbox-only ones in its sandbox variant.
func TestRealisticReads(t *testing.T) {
	rows, err := corpus.Load("realistic")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 500 {
		t.Errorf("only %d realistic rows; the issue asks for at least 500", len(rows))
	}
	// refused counts the rows refused with the sandbox; sandboxOnly those admitted only there.
	type tally struct{ rows, sandboxOnly, refused, needs, needsRefused int }
	per := map[string]*tally{}
	var total, counted tally // counted: outside needs-program groups
	var refusedRows, needsRows, sandboxRows []string
	for _, r := range rows {
		fam := strings.TrimSuffix(r.File, ".txt")
		if per[fam] == nil {
			per[fam] = &tally{}
		}
		f := per[fam]
		needs := strings.Contains(r.Comment, needsProgram)
		_, ref := judgeText(r.Command, corpusConfig())
		for _, x := range []*tally{f, &total} {
			x.rows++
			if needs {
				x.needs++
			}
		}
		if !needs {
			counted.rows++
		}
		switch {
		case ref == nil, ref.launcherOnly:
			// Admitted; a launcherOnly row through hookctl's launcher, which runs every admitted
			// command where hookctl knows its own path, sandboxed or not.
			continue
		case ref.sandboxOnly:
			f.sandboxOnly++
			total.sandboxOnly++
			if !needs {
				counted.sandboxOnly++
			}
			sandboxRows = append(sandboxRows, r.String())
			continue
		}
		f.refused++
		total.refused++
		line := fmt.Sprintf("%s: %s", r, ref.What)
		if needs {
			f.needsRefused++
			total.needsRefused++
			needsRows = append(needsRows, line)
			continue
		}
		counted.refused++
		refusedRows = append(refusedRows, line)
	}
	fams := make([]string, 0, len(per))
	for f := range per {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	pct := func(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-12s %5s %12s %8s %7s %12s %14s\n", "family", "rows", "sandbox-only", "refused", "rate", "policy-only", "needs-program")
	row := func(name string, x *tally) {
		fmt.Fprintf(&b, "%-12s %5d %12d %8d %6.1f%% %11.1f%% %7d of %-4d\n", name, x.rows, x.sandboxOnly, x.refused,
			pct(x.refused, x.rows), pct(x.refused+x.sandboxOnly, x.rows), x.needsRefused, x.needs)
	}
	for _, f := range fams {
		row(f, per[f])
	}
	row("all", &total)
	rate := float64(counted.refused) / float64(max(counted.rows, 1))
	fmt.Fprintf(&b, "outside needs-program groups, with the sandbox: %d of %d refused (%.1f%%); on the policy alone: %d (%.1f%%), "+
		"%d of them admitted only in the sandbox\n",
		counted.refused, counted.rows, 100*rate, counted.refused+counted.sandboxOnly, pct(counted.refused+counted.sandboxOnly, counted.rows),
		counted.sandboxOnly)
	fmt.Fprintf(&b, "with needs-program groups, with the sandbox: %d of %d refused (%.1f%%)\n", total.refused, total.rows, pct(total.refused, total.rows))
	t.Log(b.String())
	t.Logf("refused (%d):\n%s", len(refusedRows), strings.Join(refusedRows, "\n"))
	t.Logf("admitted only in the sandbox (%d):\n%s", len(sandboxRows), strings.Join(sandboxRows, "\n"))
	t.Logf("refused in needs-program groups (%d):\n%s", len(needsRows), strings.Join(needsRows, "\n"))
	if rate > maxRealisticRefused {
		t.Errorf("%.1f%% of realistic reads refused with the sandbox (%d of %d outside needs-program groups); the limit is %.0f%%",
			100*rate, counted.refused, counted.rows, 100*maxRealisticRefused)
	}
}

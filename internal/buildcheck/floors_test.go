package buildcheck

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// floors are the module's packages from the ground up (docs/decisions/0014): a package may import
// its own floor and those below it, never one above. A path names a package and those under it;
// the longest that matches places a package. A package placed nowhere fails the test, so that a
// new one is placed on purpose.
var floors = []struct {
	name  string
	paths []string
}{
	{"ground: primitives that know nothing of hookctl's decisions", []string{
		"internal", "fixtures/hostile", "export/launch", "retriever/settings", "retriever/internal/proc", "sandbox/egress",
		"agents/clientversion", // a client's version, read from its installation: config's [clients] needs it
	}},
	{"words: the protocol, the lexer and the shell's tables, the read-only rules, the network router and the retriever's protocol", []string{
		"hook", "lexer", "lexer/nested", "programs", "route", "retriever", "scrub",
		"internal/testclient", // tests' client, in the protocol's words
	}},
	{"stores and the sandbox: what decisions are made from and run in", []string{
		"audit", "config", "session", "sandbox", "sandbox/egress/proxy", "securerun"}},
	{"the decision: the policy, pure", []string{"policy"}},
	{"deciders and services: the gate, the retriever's front and worker", []string{
		"gate", "retriever/front", "retriever/worker",
		"sandbox/launcher", // the sandbox verb's processes: it loads the config with the judges' checks
	}},
	{"adapters and front ends: the clients' adapters, the dashboard, the exporter", []string{
		"agents", "dashboard", "export",
		"doctor", // hookctl doctor's checks: it reads Claude Code's settings through its adapter
	}},
	{"commands: wiring", []string{"cmd",
		"internal/latency/launch",    // the launch bench's command: its yardstick installs the sandbox's seccomp program
		"internal/latency/yardstick", // what that yardstick takes from the sandbox, for the bench and its test
	}},
}

const module = "github.com/hookctl/hookctl/"

// floorOf returns the floor of package p (a path inside the module), or -1.
func floorOf(p string) int {
	best, floor := -1, -1
	for i, f := range floors {
		for _, path := range f.paths {
			if (p == path || strings.HasPrefix(p, path+"/")) && len(path) > best {
				best, floor = len(path), i
			}
		}
	}
	return floor
}

// TestNoImportClimbsAFloor: every import of the module's own packages (tests aside) goes to the
// importer's floor or below. (hook once imported the retriever, and internal/latency a client's
// adapter.)
func TestNoImportClimbsAFloor(t *testing.T) {
	lines := goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	if len(lines) < 40 {
		t.Fatalf("go list found %d packages", len(lines))
	}
	for _, l := range lines {
		f := strings.Fields(l)
		p, ok := strings.CutPrefix(f[0], module)
		if !ok {
			continue
		}
		from := floorOf(p)
		if from < 0 {
			t.Errorf("%s is on no floor: place it in floors", p)
			continue
		}
		for _, imp := range f[1:] {
			q, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if to := floorOf(q); to > from {
				t.Errorf("%s (%s) imports %s, a floor up (%s)", p, floors[from].name, q, floors[to].name)
			}
		}
	}
	// The check sees a climb where there is one.
	if floorOf("hook") >= floorOf("gate") || floorOf("internal/latency/stats") != 0 || floorOf("cmd/hookctl") != len(floors)-1 {
		t.Error("the floors table does not place the packages this test relies on")
	}
}

// TestProtocolImportsNothingAbove: hook, the protocol every client adapter and decider speaks,
// imports nothing of the project but the ground floor's primitives.
func TestProtocolImportsNothingAbove(t *testing.T) {
	imports := strings.Fields(goList(t, "-f", "{{join .Imports \" \"}}", "./hook")[0])
	var own int
	for _, imp := range imports {
		if q, ok := strings.CutPrefix(imp, module); ok {
			own++
			if floorOf(q) != 0 {
				t.Errorf("hook imports %s", q)
			}
		}
	}
	if own == 0 {
		t.Error("hook imports none of the module's primitives, so this test proves little")
	}
}

// judges are what decides a command: the lexer, the shell's tables and the second parser
// (mvdan.cc/sh), the read-only rules, the edit guard, the network router, the policy and the gate.
var judges = []string{module + "lexer", module + "lexer/nested", module + "programs", module + "programs/editguard", module + "route", module + "policy", module + "gate", "mvdan.cc/sh/v3/syntax"}

// TestDashboardLinksNoJudge: the dashboard's web server shows decisions and toggles modes; it
// links none of the judges (which once came with the session store and the config).
func TestDashboardLinksNoJudge(t *testing.T) {
	deps := strings.Fields(goList(t, "-f", "{{join .Deps \" \"}}", "./cmd/hookctl-dashboard")[0])
	for _, j := range judges {
		if slices.Contains(deps, j) {
			t.Errorf("hookctl-dashboard links %s", j)
		}
	}
	// It links what it shows, so the list is the right one.
	for _, want := range []string{module + "session", module + "audit", module + "config", module + "hook"} {
		if !slices.Contains(deps, want) {
			t.Errorf("hookctl-dashboard does not link %s, so this test cannot see what it links", want)
		}
	}
	// And hookctl links the judges the list names.
	hookctl := strings.Fields(goList(t, "-f", "{{join .Deps \" \"}}", "./cmd/hookctl")[0])
	for _, j := range judges {
		if !slices.Contains(hookctl, j) {
			t.Errorf("hookctl does not link %s: the list of judges is out of date", j)
		}
	}
}

// pureForbidden are what the policy may not import: the file system, processes, system calls,
// the network. What it must know of the machine it asks through its World and its ports.
var pureForbidden = []string{"os", "os/exec", "io/fs", "io/ioutil", "syscall", "net", "net/http", "golang.org/x/sys/unix"}

// pureFilepath are the path/filepath functions that only compute on the name: Glob, Walk,
// EvalSymlinks and Abs (which asks for the working directory) read the disk.
var pureFilepath = []string{"Base", "Clean", "Dir", "Ext", "IsAbs", "IsLocal", "Join", "Match", "Rel", "Separator", "Split", "SplitList", "ToSlash", "FromSlash", "VolumeName"}

// TestPolicyDoesNoIO: package policy decides from what it is given (the call, the config, the
// session's state, its World's answers): it imports no file system, process or network
// package, uses path/filepath only on names, and loads no config.
func TestPolicyDoesNoIO(t *testing.T) {
	lines := goList(t, "-f", "{{.Dir}} {{join .GoFiles \" \"}}|{{join .Imports \" \"}}", "./policy")
	dirFiles, imports, _ := strings.Cut(lines[0], "|")
	for _, imp := range strings.Fields(imports) {
		if slices.Contains(pureForbidden, imp) {
			t.Errorf("policy imports %s", imp)
		}
	}
	f := strings.Fields(dirFiles)
	if len(f) < 5 {
		t.Fatalf("go list ./policy: %q", lines[0])
	}
	var filepathUses int
	for _, name := range f[1:] {
		for _, use := range stdlibUses(t, filepath.Join(f[0], name)) {
			switch {
			case use[0] == "path/filepath":
				filepathUses++
				if !slices.Contains(pureFilepath, use[1]) {
					t.Errorf("%s uses filepath.%s, which reads the disk", name, use[1])
				}
			case use[0] == module+"config" && strings.HasPrefix(use[1], "Load"):
				t.Errorf("%s loads the config (config.%s): the gate does, and hands it over", name, use[1])
			}
		}
	}
	if filepathUses == 0 {
		t.Error("policy uses no path/filepath function, so this test sees nothing of what it checks")
	}
}

// TestReadOnlyLauncherLinksLittle: hookctl-sandbox, which every admitted read starts as, links
// none of the judges, no CLI and no config (the hook's rewrite names pass_env; TOML's decoder
// reads the local time zone as it starts): what it links is what its every start initialises
// (issue 28).
func TestReadOnlyLauncherLinksLittle(t *testing.T) {
	deps := strings.Fields(goList(t, "-f", "{{join .Deps \" \"}}", "./cmd/hookctl-sandbox")[0])
	for _, j := range append(slices.Clone(judges), "github.com/spf13/cobra", "github.com/spf13/pflag", module+"sandbox/launcher", module+"config",
		"github.com/BurntSushi/toml") {
		if slices.Contains(deps, j) {
			t.Errorf("hookctl-sandbox links %s", j)
		}
	}
	for _, want := range []string{module + "sandbox", module + "sandbox/readonly", module + "config/home"} {
		if !slices.Contains(deps, want) {
			t.Errorf("hookctl-sandbox does not link %s, so this test cannot see what it links", want)
		}
	}
}

package buildcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// gateRoots are the packages of the hook process, which runs on every tool call and can read the
// user's files: the hookctl executable, the gate, the judges, the lexer, the network router, the
// client adapters, and the retriever's front and what it shares with the worker.
// agents/claude/claudetest and agents/agenttest are left out: they are test harnesses (fake model
// APIs on httptest) that only tests link.
var gateRoots = []string{
	"./cmd/hookctl", "./hook/...", "./policy/...", "./gate/...", "./config/...", "./session/...", "./audit/...",
	"./programs/...", "./lexer/...", "./route/...", "./agents/...",
	"./retriever", "./retriever/front", "./scrub", "./retriever/settings",
	"./export/launch", // what the hook runs to start the exporter, which is where the network code is
}

var testHarnesses = []string{"github.com/hookctl/hookctl/agents/claude/claudetest", "github.com/hookctl/hookctl/agents/agenttest"}

// networkPackages are what the hook process must not link: an HTTP client or server, TLS, a
// GitHub client, or the socket package. (net/url and net/netip only parse.)
var networkPackages = []string{"net", "net/http", "crypto/tls", "github.com/google/go-github/"}

// netImporters are the only packages allowed to bring the socket package into the gate:
// cobra's flag library imports net for its IP-address flag types (it opens no socket). Nothing
// else may, so the exception cannot grow unseen.
var netImporters = []string{"github.com/spf13/pflag"}

func isNetworkPackage(p string) bool {
	for _, n := range networkPackages {
		if p == n || strings.HasSuffix(n, "/") && strings.HasPrefix(p, n) {
			return true
		}
	}
	return false
}

// goBinary is the go command of the toolchain that runs the tests.
func goBinary(t *testing.T) string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		if gobin, err = exec.LookPath("go"); err != nil {
			t.Fatalf("no go command: %v", err)
		}
	}
	return gobin
}

// goList runs `go list` in the module root with the toolchain that runs the tests, and returns
// its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command(goBinary(t), append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %q: %v\n%s", args, err, msg)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestGateLinksNoNetworkCode: no package of the hook process depends on net/http, crypto/tls or
// go-github, and only netImporters bring in net; the retriever's worker, which is its own
// executable, is where the network code is. (The gate once linked all of it through
// hook/config.go's import of the retriever for its Config type.)
func TestGateLinksNoNetworkCode(t *testing.T) {
	// Each root with its transitive dependencies: which root drags a package in.
	roots := goList(t, append([]string{"-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, gateRoots...)...)
	if len(roots) < 8 {
		t.Fatalf("go list found %d packages: %q", len(roots), roots)
	}
	for _, l := range roots {
		f := strings.Fields(l)
		if slices.Contains(testHarnesses, f[0]) {
			continue
		}
		for _, dep := range f[1:] {
			if isNetworkPackage(dep) && dep != "net" {
				t.Errorf("%s depends on %s", f[0], dep)
			}
		}
	}
	// Who imports net, among everything the roots link.
	var pkgs []string
	for _, l := range roots {
		if f := strings.Fields(l); !slices.Contains(testHarnesses, f[0]) {
			pkgs = append(pkgs, f[0])
		}
	}
	graph := goList(t, append([]string{"-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, pkgs...)...)
	for _, l := range graph {
		f := strings.Fields(l)
		if slices.Contains(f[1:], "net") && !slices.Contains(netImporters, f[0]) {
			t.Errorf("%s imports net, which only %q may bring into the gate", f[0], netImporters)
		}
	}
	if len(graph) < 50 {
		t.Errorf("the gate's import graph has only %d packages, so this test proves little", len(graph))
	}

	// The check finds network code where it is.
	worker := strings.Fields(goList(t, "-f", "{{join .Deps \" \"}}", "./cmd/hookctl-network")[0])
	for _, want := range []string{"net", "net/http", "crypto/tls", "github.com/google/go-github/v62/github"} {
		if !slices.Contains(worker, want) {
			t.Errorf("the worker does not depend on %s, so this test cannot see it", want)
		}
	}
}

// testOnly are packages that only tests may link: fixtures that build hostile worlds, the
// test build of hookctl, and the harnesses that drive the real clients (which use both).
var testOnly = append([]string{"github.com/hookctl/hookctl/fixtures/hostile", "github.com/hookctl/hookctl/internal/testbin", "github.com/hookctl/hookctl/internal/testclient"}, testHarnesses...)

// TestFixturesStayInTests: no package of the module links a test-only fixture outside its
// tests, so the shipped binaries carry none of it.
func TestFixturesStayInTests(t *testing.T) {
	for _, l := range goList(t, "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		f := strings.Fields(l)
		if slices.Contains(testOnly, f[0]) {
			continue // test-only code may use the rest of it
		}
		for _, p := range testOnly {
			if slices.Contains(f[1:], p) {
				t.Errorf("%s imports %s, which only tests may", f[0], p)
			}
		}
	}
	// The check sees the fixture where it is: in the module.
	if got := goList(t, append([]string{"-f", "{{.ImportPath}}"}, testOnly...)...); len(got) != len(testOnly) {
		t.Errorf("go list %q: %q", testOnly, got)
	}
}

// dashboardPackages are the dashboard's executable (hookctl-dashboard, which `hookctl
// dashboard` runs): the one place besides the worker that links net/http, for its listener on
// 127.0.0.1. It is kept out of the gate by TestGateLinksNoNetworkCode (net/http), and out of
// the network by TestDashboardDialsNothing.
var dashboardPackages = []string{"./dashboard", "./cmd/hookctl-dashboard"}

// dialers are what would let the dashboard open a connection: an HTTP client, a dialer, a name
// lookup. The dashboard only accepts.
var dialers = map[string][]string{
	"net/http": {"Get", "Head", "Post", "PostForm", "Client", "DefaultClient", "Transport", "DefaultTransport", "NewRequest", "NewRequestWithContext", "ProxyFromEnvironment"},
	"net":      {"Dial", "DialTimeout", "DialTCP", "DialUDP", "DialIP", "DialUnix", "Dialer", "LookupHost", "LookupIP", "LookupAddr", "DefaultResolver", "Resolver", "ListenPacket", "ListenUDP", "ListenUnix", "ListenUnixgram"},
}

// TestDashboardDialsNothing: the dashboard's code (its tests aside) names no HTTP client, dialer
// or resolver of the standard library, and links no GitHub client: it listens on loopback and
// connects nowhere. And hookctl itself does not link it.
func TestDashboardDialsNothing(t *testing.T) {
	for _, l := range goList(t, append([]string{"-f", "{{.Dir}} {{join .GoFiles \" \"}}"}, dashboardPackages...)...) {
		f := strings.Fields(l)
		if len(f) < 2 {
			t.Fatalf("go list: %q", l)
		}
		for _, name := range f[1:] {
			for _, use := range stdlibUses(t, filepath.Join(f[0], name)) {
				if slices.Contains(dialers[use[0]], use[1]) {
					t.Errorf("%s uses %s.%s: the dashboard only listens", name, use[0], use[1])
				}
			}
		}
	}
	deps := goList(t, append([]string{"-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, dashboardPackages...)...)
	for _, l := range deps {
		f := strings.Fields(l)
		if !slices.Contains(f[1:], "net/http") {
			t.Errorf("%s does not link net/http, so this test cannot see it", f[0])
		}
		for _, d := range f[1:] {
			if strings.HasPrefix(d, "github.com/google/go-github/") {
				t.Errorf("%s links %s", f[0], d)
			}
		}
	}
	hookctl := strings.Fields(goList(t, "-f", "{{join .Deps \" \"}}", "./cmd/hookctl")[0])
	if slices.Contains(hookctl, "github.com/hookctl/hookctl/dashboard") {
		t.Error("hookctl links the dashboard; it must exec hookctl-dashboard instead")
	}
}

// stdlibUses returns each package.Name that a Go file refers to, as [import path, name], for
// the packages it imports under their own names or another.
func stdlibUses(t *testing.T, path string) [][2]string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{} // the name in the file → the import path
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = p
	}
	var uses [][2]string
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] != "" {
				uses = append(uses, [2]string{local[id.Name], sel.Sel.Name})
			}
		}
		return true
	})
	return uses
}

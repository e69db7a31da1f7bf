package programs

import (
	"slices"
	"strings"
	"testing"
)

// TestGoRules: version, env, list and doc, with their printing flags only, flags before
// operands as the go command's flag package reads them; never a build, a run, a test, a
// generate, a fetch, a write of the go env file or a flag that runs a program.
func TestGoRules(t *testing.T) {
	check(t, true,
		r("go", "version"),
		r("go", "env"),
		r("go", "env", "GOPATH"),
		r("go", "env", "GOPATH", "GOMODCACHE", "GOOS"),
		r("go", "env", "-json"),
		r("go", "env", "-json", "GOFLAGS"),
		r("go", "env", "-changed"),
		r("go", "env", "--json"), // the flag package reads --name as -name
		r("go", "list", "./..."),
		r("go", "list", "-m", "all"),
		r("go", "list", "-m", "-json", "all"),
		r("go", "list", "-json", "./..."),
		r("go", "list", "-json=Name,Dir,Imports", "./..."),
		r("go", "list", "-f", pat("{{.ImportPath}} {{.Dir}}"), "./..."),
		r("go", "list", "-f={{.Name}}", "."),
		r("go", "list", "-e", "-deps", "-test", "./hook"),
		r("go", "list", "-find", "std"),
		r("go", "list", "-tags", "integration,linux", "./..."),
		r("go", "list", "-m", "golang.org/x/tools"),
		r("go", "list", loopVar("./hook")),
		r("go", "list"),
		r("go", "doc", "fmt.Println"),
		r("go", "doc", "fmt", "Println"),
		r("go", "doc", "-all", "./hook"),
		r("go", "doc", "-src", "-u", "strings.Cut"),
		r("go", "doc", "-short", "-c", "-cmd", "net/http"),
		r("go", "doc"),
	)
	check(t, false,
		r("go").because("needs a subcommand"),
		r("go", "build", "./...").because("is not a read"),
		r("go", "run", ".").because("is not a read"),
		r("go", "test", "./...").because("is not a read"),
		r("go", "generate", "./...").because("is not a read"),
		r("go", "get", "golang.org/x/tools").because("is not a read"),
		r("go", "install", "golang.org/x/tools/cmd/stringer@latest").because("is not a read"),
		r("go", "mod", "download").because("is not a read"),
		r("go", "mod", "tidy").because("is not a read"),
		r("go", "vet", "./...").because("is not a read"),
		r("go", "tool", "pprof").because("is not a read"),
		r("go", "work", "sync").because("is not a read"),
		r("go", "clean", "-cache").because("is not a read"),
		r("go", "telemetry", "off").because("is not a read"),
		r("go", "-C", "x", "list").because("is not a read"), // go takes no flag before the subcommand
		r("go", loopVar("list")).because("needs a subcommand"),
		r("go", "version", "-m", "bin/hookctl").because("reads the build information"),
		r("go", "version", "bin/hookctl").because("takes no operand"),
		r("go", "env", "-w", "GOFLAGS=-toolexec=./evil").because("writes your go env file"),
		r("go", "env", "-u", "GOFLAGS").because("writes your go env file"),
		r("go", "env", "--w", "GOPROXY=direct").because("writes your go env file"),
		r("go", "env", "GOFLAGS=-toolexec=./evil").because("not a variable's name"),
		r("go", "env", "gopath").because("not a variable's name"),
		r("go", "env", "GOPATH", "-w").because("after an operand"), // go would read -w as a name; refused all the same
		r("go", "env", "-json=true").because("without a value"),
		r("go", "list", "-toolexec", "./evil", "./...").because("runs a program for each tool"),
		r("go", "list", "-toolexec=./evil", "./...").because("runs a program for each tool"),
		r("go", "list", "-exec", "./evil").because("runs a program"),
		r("go", "list", "-export", "./...").because("compiles"),
		r("go", "list", "-compiled", "./...").because("runs cgo"),
		r("go", "list", "-m", "-u", "all").because("asks the module proxy"),
		r("go", "list", "-m", "-versions", "golang.org/x/tools").because("asks the module proxy"),
		r("go", "list", "-m", "-retracted", "all").because("asks the module proxy"),
		r("go", "list", "-mod=mod", "./...").because("rewrites go.mod"),
		r("go", "list", "-modfile=evil.mod", "./...").because("names another go.mod"),
		r("go", "list", "-overlay", "o.json", "./...").because("replaces source files"),
		r("go", "list", "-reuse=old.json", "-m", "all").because("reads a file"),
		r("go", "list", "-C", "/tmp", "./...").because("changes directory"),
		r("go", "list", "-x", "./...").because("not on the read-only allowlist"),
		r("go", "list", "-a", "./...").because("not on the read-only allowlist"),
		r("go", "list", "-ldflags=-X=a", "./...").because("not on the read-only allowlist"),
		r("go", "list", "-gcflags", "all=-N", "./...").because("not on the read-only allowlist"),
		r("go", "list", "--", "./...").because("is not needed"),
		r("go", "list", "./...", "-toolexec=./evil").because("after an operand"),
		r("go", "list", "-f", "-json", "./...").because("may not start with `-`"), // go would take -json as the template
		r("go", "list", "-f", loopVar("x"), "./...").because("loop variable"),
		r("go", "list", "-f").because("needs a value"),
		r("go", "list", "-tags", pat("a;b"), "./...").because("shell syntax in the value"),
		r("go", "list", pat("a|b")).because("shell syntax in the argument"),
		r("go", "list", loopVar("-export")).because("loop variable may only be an operand"),
		r("go", "list", "-m", "-e=false", "all").because("without a value"),
		r("go", "list", "---json", "./...").because("not on the read-only allowlist"),
		r("go", "doc", "-http").because("starts a web server"),
		r("go", "doc", "-http", "fmt").because("starts a web server"),
		r("go", "doc", "-C", "x", "fmt").because("changes directory"),
		r("go", "doc", "fmt", "Println", "extra").because("at most 2 operands"),
		r("go", "doc", "fmt", "-src").because("after an operand"),
		r("go", "list", Arg{Value: "./hook/*.go", Glob: true}).because("glob"),
	)
}

// TestGoRewrite: every form runs the local toolchain; go list and go doc also without VCS
// stamping, the go env file's GOFLAGS or downloads; the words are as judged; go is
// sandbox-only.
func TestGoRewrite(t *testing.T) {
	local := []string{"GOTOOLCHAIN=local"}
	loading := []string{"GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false", "GOPROXY=off"}
	for _, c := range []struct {
		in  string
		env []string
	}{
		{"version", local},
		{"env GOPATH", local},
		{"env -json", local},
		{"list ./...", loading},
		{"list -m all", loading},
		{"doc fmt.Println", loading},
	} {
		env, out := Lookup("go").RewriteArgs(strings.Fields(c.in))
		if got := strings.Join(out, " "); got != c.in || !slices.Equal(env, c.env) {
			t.Errorf("go %s: rewrite %v %q, want %v %q", c.in, env, got, c.env, c.in)
		}
	}
	if Lookup("go").SandboxOnly == "" {
		t.Error("go is not sandbox-only")
	}
}

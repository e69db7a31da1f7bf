package programs

import (
	"slices"
	"strings"
	"testing"
)

// TestCargoRules: metadata and tree only, their listed options, no operands, nothing that picks
// another toolchain (+nightly), configuration (--config, -Z) or a build.
func TestCargoRules(t *testing.T) {
	check(t, true,
		r("cargo", "metadata", "--format-version", "1"),
		r("cargo", "metadata", "--no-deps", "--format-version=1"),
		r("cargo", "metadata", "--offline", "--locked", "--all-features"),
		r("cargo", "tree"),
		r("cargo", "tree", "-i", "serde"),
		r("cargo", "tree", "-e", "normal", "--depth", "1"),
		r("cargo", "tree", "-d", "--target", "all"),
		r("cargo", "tree", "-p", "hookctl", "--no-dedupe", "--prefix", "none"),
		r("cargo", "tree", "--format", pat("{p} {f}")),
		r("cargo", "tree", "--manifest-path", "crates/a/Cargo.toml"),
		r("cargo", "tree", "--frozen"),
	)
	check(t, false,
		r("cargo", "build").because("only metadata and tree"),
		r("cargo", "run").because("only metadata and tree"),
		r("cargo", "+nightly", "tree").because("only metadata and tree"),                  // a toolchain override
		r("cargo", "--config", "build.rustc=x", "tree").because("only metadata and tree"), // configuration before the subcommand
		r("cargo", "tree", "--config", "build.rustc=x").because("not on the read-only allowlist"),
		r("cargo", "tree", "-Z", "unstable-options").because("not on the read-only allowlist"),
		r("cargo", "metadata", "--target-dir", "/tmp/x").because("not on the read-only allowlist"),
		r("cargo", "tree", "extra").because("takes no operand"),
		r("cargo", "tree", "--manifest-path", loopVar("Cargo.toml")).because("loop variable"),
		r("cargo").because("needs a subcommand"),
	)
}

// TestCargoRewrite: the rewrite names the compiler and empties both wrappers on the command line,
// adds --offline and --locked unless given (cargo refuses a flag twice), and stops rustup
// installing a toolchain; the judge marks cargo sandbox-only.
func TestCargoRewrite(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"tree", `--config build.rustc="rustc" --config build.rustc-wrapper="" --config build.rustc-workspace-wrapper="" tree --offline --locked`},
		{"metadata --offline", `--config build.rustc="rustc" --config build.rustc-wrapper="" --config build.rustc-workspace-wrapper="" metadata --offline --locked`},
		{"tree --frozen", `--config build.rustc="rustc" --config build.rustc-wrapper="" --config build.rustc-workspace-wrapper="" tree --frozen`},
	} {
		env, out := Lookup("cargo").RewriteArgs(strings.Fields(c.in))
		if got := strings.Join(out, " "); got != c.want || !slices.Equal(env, []string{"RUSTUP_AUTO_INSTALL=0"}) {
			t.Errorf("cargo %s: rewrite %v %q, want RUSTUP_AUTO_INSTALL=0 %q", c.in, env, got, c.want)
		}
	}
	if Lookup("cargo").SandboxOnly == "" {
		t.Error("cargo is not sandbox-only")
	}
}

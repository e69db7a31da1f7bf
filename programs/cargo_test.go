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
		r("cargo", "--version"),
		r("cargo", "-V"),
		r("cargo", "-vV"),
		r("cargo", "--version", "--verbose"),
	)
	check(t, false,
		r("cargo", "build").because("only metadata, tree and --version"),
		r("cargo", "run").because("only metadata, tree and --version"),
		r("cargo", "+nightly", "tree").because("only metadata, tree and --version"),                  // a toolchain override
		r("cargo", "--config", "build.rustc=x", "tree").because("only metadata, tree and --version"), // configuration before the subcommand
		r("cargo", "tree", "--config", "build.rustc=x").because("not on the read-only allowlist"),
		r("cargo", "tree", "-Z", "unstable-options").because("not on the read-only allowlist"),
		r("cargo", "metadata", "--target-dir", "/tmp/x").because("not on the read-only allowlist"),
		r("cargo", "tree", "extra").because("takes no operand"),
		r("cargo", "tree", "--manifest-path", loopGlob("./*.toml")).because("glob"),
		r("cargo").because("needs a subcommand"),
		r("cargo", "+stable", "--version").because("only metadata, tree and --version"),
		r("cargo", "--version", "build").because("only `cargo --version`"),
		r("cargo", "-V", "--config", "build.rustc=./evil").because("only `cargo --version`"),
		r("cargo", "--config", "build.rustc=./evil", "-V").because("only metadata, tree and --version"),
		r("cargo", "-v").because("only `cargo --version`"),
		r("cargo", "--list").because("only metadata, tree and --version"),
		r("cargo", "-Zunstable-options", "-V").because("only metadata, tree and --version"),
		r("cargo", "-V", "-v", "-v").because("only `cargo --version`"),
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
	if env, out := Lookup("cargo").RewriteArgs([]string{"-vV"}); !slices.Equal(env, []string{"RUSTUP_AUTO_INSTALL=0"}) || !slices.Equal(out, []string{"-vV"}) {
		t.Errorf("cargo -vV: rewrite %v %q, want RUSTUP_AUTO_INSTALL=0 and the words as judged", env, out)
	}
	if Lookup("cargo").SandboxOnly == "" {
		t.Error("cargo is not sandbox-only")
	}
}

// TestRustcRules: only the version, in the spellings rustc reads; never a source file, an
// output, another toolchain or a print of anything else. rustc runs in the sandbox only, with
// rustup's auto-install off.
func TestRustcRules(t *testing.T) {
	check(t, true,
		r("rustc", "--version"),
		r("rustc", "-V"),
		r("rustc", "-vV"),
		r("rustc", "-Vv"),
		r("rustc", "-v", "-V"),
		r("rustc", "--version", "--verbose"),
	)
	check(t, false,
		r("rustc", "x.rs").because("only `rustc --version`"),
		r("rustc", "--version", "x.rs").because("only `rustc --version`"),
		r("rustc", "+nightly", "--version").because("only `rustc --version`"),
		r("rustc", "-o", "/tmp/x", "x.rs").because("only `rustc --version`"),
		r("rustc", "--print", "sysroot").because("only `rustc --version`"),
		r("rustc", "-C", "linker=./evil", "-V").because("only `rustc --version`"),
		r("rustc", "-").because("only `rustc --version`"),
		r("rustc", "-v").because("only `rustc --version`"),
		r("rustc").because("only `rustc --version`"),
		r("rustc", loopVar("-V")).because("only `rustc --version`"),
	)
	env, out := Lookup("rustc").RewriteArgs([]string{"--version"})
	if !slices.Equal(env, []string{"RUSTUP_AUTO_INSTALL=0"}) || !slices.Equal(out, []string{"--version"}) || Lookup("rustc").SandboxOnly == "" {
		t.Errorf("rustc --version: rewrite %v %q (sandbox-only %q), want RUSTUP_AUTO_INSTALL=0, the words as judged, sandbox-only", env, out, Lookup("rustc").SandboxOnly)
	}
}

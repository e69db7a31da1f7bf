package programs

import (
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// cargo is allowed for `cargo metadata` and `cargo tree`, which resolve the dependency graph and
// print it. They build nothing, but cargo runs programs on the way, chosen by files the
// project brings:
//   - `.cargo/config.toml`'s build.rustc, build.rustc-wrapper and build.rustc-workspace-wrapper
//     run as `rustc -vV` to learn the host (measured with cargo 1.95: metadata ran all three).
//     The rewrite pins them on the command line, which beats every config file and the
//     environment: --config build.rustc="rustc" and both wrappers "".
//   - resolving may write Cargo.lock or fetch the registry; the rewrite adds --offline and
//     --locked (unless given), so cargo errors instead.
//   - under rustup, `cargo` itself is a proxy that runs the toolchain the project's
//     rust-toolchain.toml names, and a `path = "…"` there is a directory of the project's own
//     programs (measured: rustup 1.29 ran its bin/cargo). No option or variable turns that off
//     without naming a toolchain the hook cannot know, so cargo runs only in the OS sandbox
//     (SandboxOnly); RUSTUP_AUTO_INSTALL=0 keeps a named channel from being downloaded.
//
// `cargo --version` (-V, with -v for more) prints before cargo reads any configuration: with the
// same traps it ran none, so it runs as written, but for RUSTUP_AUTO_INSTALL=0.
//
// What: `cargo metadata|tree [OPTIONS]` with the options below, no operands, no global options,
// no `+TOOLCHAIN`, no --config or -Z; `cargo --version` (rustVersionForms).
//
// Test: TestCargoRules, TestCargoRewrite (cargo_test.go); TestCargoPinsRealCargo (hook) runs the
// rewrite against a project whose config names a trap for each of the three;
// TestRustupToolchainPathContained (hook) runs cargo --version under a rust-toolchain.toml that
// names the project's own programs; deny/toolchains.txt.
var cargoRule = &Program{
	Name: "cargo", Summary: "print the dependency graph (metadata, tree; offline, locked) or cargo's version (in the sandbox only)",
	BSD:         &BSD{Same: true, Note: "the same program everywhere, with its own parser"},
	Custom:      judgeCargo,
	Rewrite:     cargoRewrite,
	Reads:       cargoReads,
	SandboxOnly: "cargo runs the toolchain a project's rust-toolchain.toml names, which may be the project's own programs",
}

// cargoCommon are the options metadata and tree share.
const (
	cargoCommonFlags  = "--all-features --no-default-features --offline --locked --frozen -q --quiet -v --verbose"
	cargoCommonValued = "-F --features --manifest-path --color"
)

var (
	cargoMetadataOpts = &Options{
		Flags:  cargoCommonFlags + " --no-deps",
		Valued: cargoCommonValued + " --format-version --filter-platform",
	}
	cargoTreeOpts = &Options{
		Flags: cargoCommonFlags + " --workspace --no-dedupe -d --duplicates",
		Valued: cargoCommonValued + " -p --package --exclude -i --invert --prune --depth -e --edges --prefix " +
			"--charset -f --format --target",
		Patterns: "-f --format",
	}
)

func judgeCargo(args []Arg) *Refusal {
	if len(args) == 0 || args[0].Pattern || args[0].Var {
		return refuse("cargo", "needs a subcommand: metadata or tree")
	}
	if wordlist.Has(rustVersionForms, args[0].Value) {
		return judgeRustVersion("cargo", args)
	}
	var opts *Options
	switch args[0].Value {
	case "metadata":
		opts = cargoMetadataOpts
	case "tree":
		opts = cargoTreeOpts
	default:
		return &Refusal{Program: "cargo", What: "`cargo " + clip.Short(args[0].Value) + "` is not a read: only metadata, tree and --version are allowed (the others build, run or fetch code)",
			Hint: "cargo metadata --no-deps --format-version 1, cargo tree; or read_only_runners in your config for builds"}
	}
	c, r := opts.Parse("cargo "+args[0].Value, args[1:])
	if r != nil {
		return r
	}
	if len(c.Operands) > 0 {
		return refuse("cargo "+args[0].Value, "takes no operand (`%s`)", clip.Short(c.Operands[0].Value))
	}
	return nil
}

// cargoPins are the options the rewrite puts before the subcommand: the compiler and its
// wrappers named on the command line, which beats the project's .cargo/config.toml and the
// environment.
var cargoPins = []string{
	"--config", `build.rustc="rustc"`,
	"--config", `build.rustc-wrapper=""`,
	"--config", `build.rustc-workspace-wrapper=""`,
}

// cargoRewrite pins the compiler off and adds --offline and --locked unless the call has them
// (cargo refuses a flag given twice). `cargo --version` runs as judged.
func cargoRewrite(args []string) (env, out []string) {
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		return rustupPins, args
	}
	out = append(append(out, cargoPins...), args...)
	has := func(names ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(names, a) })
	}
	if !has("--offline", "--frozen") {
		out = append(out, "--offline")
	}
	if !has("--locked", "--frozen") {
		out = append(out, "--locked")
	}
	return rustupPins, out
}

// rustupPins keep rustup from downloading the toolchain a project's rust-toolchain.toml names.
var rustupPins = []string{"RUSTUP_AUTO_INSTALL=0"}

// rustc is allowed to print its version, which is all an agent exploring a repository asks it.
// Under rustup, rustc is the same proxy as cargo: it runs the toolchain the project's
// rust-toolchain.toml names, and `path = "/abs/dir"` there is a directory of the project's own
// programs (measured with rustup 1.29: it ran the project's bin/rustc for --version, and refused
// a relative path). Nothing turns that off without naming a toolchain the hook cannot know, so
// rustc runs only in the OS sandbox (SandboxOnly), where such a program can write nothing and
// reach no network; RUSTUP_AUTO_INSTALL=0 keeps a named channel from being downloaded.
//
// What: `rustc --version` (rustVersionForms); no source file, no +TOOLCHAIN, no --print.
//
// Test: TestRustcRules (cargo_test.go); TestRustupToolchainPathContained (hook) runs it under a
// rust-toolchain.toml naming the project's programs, with the sandbox and without;
// deny/toolchains.txt (rustc x.rs, rustc +nightly, -o, --print).
var rustcRule = &Program{
	Name: "rustc", Summary: "print the compiler's version (rustc --version; in the sandbox only)",
	BSD:         &BSD{Same: true, Note: "the same program everywhere, with its own parser"},
	Custom:      func(args []Arg) *Refusal { return judgeRustVersion("rustc", args) },
	Rewrite:     func(args []string) (env, out []string) { return rustupPins, args },
	SandboxOnly: "rustc runs the toolchain a project's rust-toolchain.toml names, which may be the project's own programs",
}

// rustVersionForms are the words of `rustc --version` and `cargo --version`: -V or --version,
// with -v or --verbose for the commit and host, or -vV. Both parse them the same way.
const rustVersionForms = "-V --version -v --verbose -vV -Vv"

// judgeRustVersion admits one or two words of rustVersionForms, one of them asking for the
// version: with only -v, rustc and cargo would want an input or a command.
func judgeRustVersion(prog string, args []Arg) *Refusal {
	version := false
	for _, a := range args {
		if a.Pattern || a.Var || !wordlist.Has(rustVersionForms, a.Value) {
			return &Refusal{Program: prog, What: "only `" + prog + " --version` is allowed, not `" + clip.Short(a.Value) + "` (" + prog + " builds, and +TOOLCHAIN picks another toolchain)",
				Hint: prog + " --version, " + prog + " -vV"}
		}
		version = version || a.Value != "-v" && a.Value != "--verbose"
	}
	if !version || len(args) > 2 {
		return refuse(prog, "only `%s --version`, with -v for more, is allowed", prog)
	}
	return nil
}

// cargoReads are the files cargo opens that the call names: its manifest.
func cargoReads(args []Arg) []string {
	var out []string
	for i, a := range args {
		if v, ok := strings.CutPrefix(a.Value, "--manifest-path="); ok {
			out = append(out, v)
		} else if a.Value == "--manifest-path" && i+1 < len(args) {
			out = append(out, args[i+1].Value)
		}
	}
	return out
}

// Package securerun is `hookctl run --profile secure-read-only`: one agent run (or any command)
// on a sensitive repository under a fail-closed contract (docs/secure-read-only.md).
//
// It runs in hookctl's process that supervises the run, outside the sandbox, and links no
// network code. The run goes in three steps:
//   - Preflight gathers what the contract depends on (the repository's root, checkout and
//     sensitive files (scan.go), its own agent configuration (AgentConfig), the environment, the
//     machine's isolation, and under --network model-only the model API and the credential the
//     broker adds (Model)) and Check decides, as a pure function of those facts, whether the run
//     may start; every reason it may not is a Failure naming what is missing. Render and the JSON
//     form print it.
//   - Supervise starts the command through hookctl's launcher in the secure-read-only sandbox
//     profile (package sandbox), passes on nothing of the caller's environment but the
//     allowlist (the agent sees a placeholder where its model credential would be), and tears
//     the command and everything it started down when it ends or is interrupted. An agent hookctl
//     knows runs with hookctl's own hooks, pinned read-only for the whole run.
//   - RunMeta (runmeta.json in the output directory, and the same as a SARIF log) records the
//     preflight, the outcome, what the agent's hooks decided and the artifacts, validated after
//     the run (ValidateArtifacts).
//
// Threat model: the repository and the command are untrusted (the agent may follow
// instructions planted in the repository); the user and their configuration are trusted.
package securerun

import (
	"path/filepath"
	"sync"
	"time"
)

// Profile is the one profile `hookctl run` knows.
const Profile = "secure-read-only"

// Network policies. Only NetworkDeny is built; NetworkModelOnly is refused with a reason.
const (
	NetworkDeny      = "deny"
	NetworkModelOnly = "model-only"
)

// CredentialsNone is the one credential mode: no credential reaches the command.
const CredentialsNone = "none"

// The output directory's layout. Only Artifacts, Home and Tmp are writable inside the sandbox;
// runmeta.json and the quarantine are hookctl's.
const (
	MetaName       = "runmeta.json"
	ArtifactsDir   = "artifacts"
	HomeDir        = "home"
	TmpDir         = "tmp"
	QuarantineDir  = "quarantine"
	ConfigDir      = "config"          // what hookctl writes for the agent: readable, not writable, in the run
	OutEnv         = "HOOKCTL_RUN_OUT" // names the artifacts directory inside the run
	DefaultMaxSize = 64 << 20          // bytes an artifact may have before it is quarantined
)

// Layout is where a run's output directory puts things.
type Layout struct{ Out string }

func (l Layout) Meta() string       { return filepath.Join(l.Out, MetaName) }
func (l Layout) Artifacts() string  { return filepath.Join(l.Out, ArtifactsDir) }
func (l Layout) Home() string       { return filepath.Join(l.Out, HomeDir) }
func (l Layout) Tmp() string        { return filepath.Join(l.Out, TmpDir) }
func (l Layout) Quarantine() string { return filepath.Join(l.Out, QuarantineDir) }
func (l Layout) Config() string     { return filepath.Join(l.Out, ConfigDir) }

// Writable are the directories the command may write.
func (l Layout) Writable() []string { return []string{l.Artifacts(), l.Home(), l.Tmp()} }

// RunsDir is where runs without --out go, under hookctl's state directory.
func RunsDir(stateDir string) string { return filepath.Join(stateDir, "runs") }

// NewRunID names a run by its start, with randomness enough that two runs never share a
// directory.
func NewRunID(now time.Time, random string) string {
	return now.UTC().Format("20060102T150405.000Z") + "-" + random
}

// lazy is a value built on first use: the hook process links this package, and its tables and
// regular expressions must cost it nothing at start-up (sync.OnceValue, called at package
// level, allocates then: TestInitAllocatesNothing).
type lazy[T any] struct {
	once  sync.Once
	v     T
	build func() T
}

func (l *lazy[T]) get() T {
	l.once.Do(func() { l.v = l.build() })
	return l.v
}

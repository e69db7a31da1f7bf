package main

import (
	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/doctor"
)

func newDoctorCmd(s *streams) *cobra.Command {
	agentName := "claude"
	cmd := &cobra.Command{
		Use:   "doctor [--agent NAME]",
		Short: "Check that hookctl is installed and will run",
		Long: `doctor checks hookctl's installation: the binary, its registration in each settings
scope, a project setting that silences hooks, the Claude Code version, the configuration, the
state directory, and the hash chains of the decision log and the audit (hookctl log verify). It prints each problem with its fix and exits 1 if there is any.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			problems := 0
			if agentName == "claude" {
				problems = doctorRun(s)
			} else if _, err := agentNamed(agentName); err != nil {
				return err
			} else {
				problems = agentDoctorRun(s, agentName)
			}
			if problems > 0 {
				return exitCode(exitDenied)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&agentName, "agent", "claude", "the client whose registration to check: claude, codex, qwen, gemini, copilot or cursor")
	return cmd
}

// probeStateDir is the state directory's write probe doctor runs (doctor.ProbeStateDir): a
// variable, which a test replaces (as root, permission bits stop no write).
var probeStateDir = doctor.ProbeStateDir

// newDoctor is a doctor of this installation, saying what it finds on s.
func newDoctor(s *streams, env environment) *doctor.Doctor {
	return &doctor.Doctor{Out: s.out, Env: doctor.Env{Home: env.home, UserHome: env.userHome, Binary: env.binary,
		Version: versionString(), Isolation: isolationOf, Launcher: launchEnv(), NetworkNamespaceProblem: networkNamespaceProblem(),
		ProbeStateDir: probeStateDir}}
}

// doctorRun is hookctl doctor for Claude Code (doctor.Doctor.Run).
func doctorRun(s *streams) int {
	env := hookEnv()
	d := newDoctor(s, env)
	if env.err != nil {
		d.Problem("set HOME or HOOKCTL_HOME", "hookctl's home: %v", env.err)
		return d.Problems
	}
	return d.Run()
}

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/internal/buildinfo"
)

// versionString is hookctl's version, set at build time with -ldflags
// "-X github.com/hookctl/hookctl/internal/buildinfo.version=…" (its worker shares it).
func versionString() string { return buildinfo.Version() }

func newVersionCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print hookctl's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprint(s.out, buildinfo.Describe("hookctl"))
			return err
		},
	}
}

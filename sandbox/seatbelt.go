package sandbox

import (
	"strings"
)

// Seatbelt is p as a macOS Seatbelt policy for sandbox-exec -p: deny by default; read and
// execute everywhere but Hidden; write only Scratch and WriteFiles; no network (nothing allows
// it); signals and process inspection only within the sandbox; the few system services that
// user and group lookups need.
//
// It is generated from the same Profile as the Linux sandbox and tested as text here. It has
// not been run on a Mac: the probe (a real restricted exec, as on Linux) decides whether
// commands run under it, so a profile macOS refuses means policy only, said so, never a silent
// hole.
func Seatbelt(p *Profile) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-exec)\n(allow process-fork)\n")
	b.WriteString("(allow signal (target same-sandbox))\n(allow process-info* (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n")
	b.WriteString("(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") " +
		"(global-name \"com.apple.system.notification_center\"))\n")
	b.WriteString("(allow file-read*")
	if len(p.Hidden) > 0 {
		b.WriteString(" (require-all (subpath \"/\")")
		for _, h := range p.Hidden {
			b.WriteString(" (require-not (subpath " + sbString(h) + "))")
		}
		b.WriteString(")")
	}
	b.WriteString(")\n")
	if p.Scratch != "" {
		b.WriteString("(allow file-write* (subpath " + sbString(p.Scratch) + "))\n")
	}
	for _, f := range p.WriteFiles {
		b.WriteString("(allow file-write-data file-ioctl (literal " + sbString(f) + "))\n")
	}
	return b.String()
}

// sbString quotes s as an SBPL string literal.
func sbString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

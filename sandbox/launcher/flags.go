package launcher

import "github.com/spf13/pflag"

// AddFlags registers the roles' flags on fs, hidden: hookctl writes them on the command lines of
// the processes it starts (the probe, the launchers, hookctl run); no one types them. Their
// names are those command lines' (sandbox/probe.go, sandbox/init_linux.go, sandbox/secure.go,
// securerun), so they do not change.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	for _, f := range []struct {
		name string
		to   any
	}{
		{"inside-check", &o.InsideCheck}, {"inside-check-edit", &o.InsideCheckEdit},
		{"inside-check-edit-landlock", &o.InsideCheckEditLandlock}, {"marker", &o.Marker}, {"outside", &o.Outside},
		{"probe-confine", &o.ProbeConfine}, {"init", &o.Init}, {"inner", &o.Inner}, {"in-user-namespace", &o.InUserNS},
		{"egress-fd", &o.EgressFD}, {"proxy-connect", &o.ProxyConnect}, {"egress-watch", &o.EgressWatch},
		{"status-fd", &o.StatusFD}, {"model-fd", &o.ModelFD}, {"model-var", &o.ModelVars}, {"model-port", &o.ModelPort},
		{"run-init", &o.RunInit},
	} {
		switch to := f.to.(type) {
		case *string:
			fs.StringVar(to, f.name, "", "")
		case *bool:
			fs.BoolVar(to, f.name, false, "")
		case *int:
			fs.IntVar(to, f.name, 0, "")
		case *[]string:
			fs.StringArrayVar(to, f.name, nil, "")
		}
		fs.MarkHidden(f.name)
	}
}

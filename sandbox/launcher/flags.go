package launcher

import "github.com/spf13/pflag"

// hiddenFlags are the roles' flags: hookctl writes them on the command lines of the processes it
// starts (the probe, the launchers, hookctl run), and no one types them; their names are those
// command lines' (sandbox/probe.go, sandbox/init_linux.go, sandbox/secure.go, securerun), so they
// do not change. Each says why it can weaken no protection, beyond what roles says of them all
// (no agent reaches `hookctl sandbox`: TestNoAgentStartsARole).
var hiddenFlags = []struct {
	name  string
	to    func(o *Options) any
	holds string
}{
	{"inside-check", func(o *Options) any { return &o.InsideCheck }, "roles: the probe's inside check"},
	{"inside-check-edit", func(o *Options) any { return &o.InsideCheckEdit }, "roles: the edit probe's inside check"},
	{"inside-check-edit-landlock", func(o *Options) any { return &o.InsideCheckEditLandlock }, "roles: the Landlock-only edit probe's"},
	{"marker", func(o *Options) any { return &o.Marker }, "data for the inside checks"},
	{"outside", func(o *Options) any { return &o.Outside }, "data for the inside checks"},
	{"probe-confine", func(o *Options) any { return &o.ProbeConfine }, "the probe's edit profile: the project its only " +
		"writable directory; it drops the session's checks (edit mode, the nested clients' freeze, the link check), which " +
		"is safe only because the probe alone passes it, on a scratch project of its own: the one flag that relaxes " +
		"its profile, guarded by no agent reaching it and, from inside a sandbox, by the sandbox around it"},
	{"init", func(o *Options) any { return &o.Init }, "the edit sandbox's init: sandbox.ServeInit refuses to run but as pid 1 " +
		"of its own pid namespace, outside the machine's mount namespace (and, unprivileged, in a user namespace of its own), " +
		"then applies the profile to itself"},
	{"in-user-namespace", func(o *Options) any { return &o.InUserNS }, "the publish launcher inside sandbox.RunIsolated's " +
		"namespaces: it skips making them, and sandbox.BridgeNetwork refuses (nothing runs) unless the process is in a " +
		"network namespace holding only loopback"},
	{"egress-fd", func(o *Options) any { return &o.EgressFD }, "the bridge's handover: sandbox.BridgeNetwork checks the " +
		"network namespace as above before it makes the proxy's listener"},
	{"proxy-connect", func(o *Options) any { return &o.ProxyConnect }, "roles: ssh's proxy command"},
	{"egress-watch", func(o *Options) any { return &o.EgressWatch }, "roles: the egress watcher"},
	{"status-fd", func(o *Options) any { return &o.StatusFD }, "where the secure-read-only launcher reports a failure: output only"},
	{"model-fd", func(o *Options) any { return &o.ModelFD }, "the run's init's broker handover: sandbox.BridgeNetwork checks " +
		"the network namespace"},
	{"model-var", func(o *Options) any { return &o.ModelVars }, "the variables the run's init points at the broker: " +
		"environment only"},
	{"model-port", func(o *Options) any { return &o.ModelPort }, "the one port the secure-read-only command may connect " +
		"to: the profile applies it only in a network namespace holding only loopback (sandbox/linux.go), else nothing " +
		"runs (TestModelPortOnlyInTheRunsNetwork)"},
	{"run-init", func(o *Options) any { return &o.RunInit }, "hookctl run's init: sandbox.ServeRunInit runs only as pid 1 " +
		"of its own pid namespace"},
}

// AddFlags registers the roles' flags (hiddenFlags) on fs, hidden.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	for _, f := range hiddenFlags {
		switch to := f.to(o).(type) {
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

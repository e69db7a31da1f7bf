//go:build hookctl_testseams

package worker

import "net/netip"

// fetchAddrPolicy, in a test build (the hookctl_testseams tag; see buildinfo.TestSeams), lets a
// fetch reach fixture servers on loopback, and only there: every other address, private and
// metadata ranges included, is judged by BlockedAddr. A shipped binary holds none of this.
func fetchAddrPolicy() func(netip.Addr) (bool, string) {
	return func(a netip.Addr) (bool, string) {
		if a.Unmap().IsLoopback() {
			return false, ""
		}
		return BlockedAddr(a)
	}
}

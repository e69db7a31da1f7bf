//go:build !hookctl_testseams

package worker

import "net/netip"

// fetchAddrPolicy is the worker's rule for the addresses a fetch may reach: nil, BlockedAddr
// alone. Only a test build differs (testseams_on.go); no variable or config can.
func fetchAddrPolicy() func(netip.Addr) (bool, string) { return nil }

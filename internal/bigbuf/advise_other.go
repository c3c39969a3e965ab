//go:build !linux

package bigbuf

// adviseHuge does nothing outside Linux.
func adviseHuge([]byte) {}

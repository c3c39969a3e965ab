//go:build !linux

package readcap

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseHuge does nothing where transparent huge pages cannot be asked for.
func adviseHuge(b []byte) {}

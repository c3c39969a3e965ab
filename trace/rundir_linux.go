//go:build linux

package trace

import "golang.org/x/sys/unix"

// exchangeDirs swaps the directories a and b in one atomic rename.
func exchangeDirs(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

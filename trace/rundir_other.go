//go:build !linux

package trace

import "errors"

// exchangeDirs is unavailable here; Close falls back to two renames.
func exchangeDirs(a, b string) error { return errors.ErrUnsupported }

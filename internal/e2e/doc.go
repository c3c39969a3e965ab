// Package e2e holds end-to-end tests across packages: PTX instrumented by
// package instrument, executed by replay on the timing model, decoded by
// trace. It has no API; see e2e_test.go.
package e2e

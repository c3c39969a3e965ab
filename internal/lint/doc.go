// Package lint holds module-wide source checks run as tests: today, that
// no function outside a short list of flat opcode tables has a body longer
// than MaxFuncLines lines (issue 11: long functions are split where it helps
// reading). It has no non-test API beyond the limit itself.
package lint

// MaxFuncLines is the longest function body, in lines between its braces,
// that the module allows outside the allowlist in funclen_test.go.
const MaxFuncLines = 150

// Package specfile reads and writes model.Spec files: YAML (or JSON, read
// as YAML) documents that name a preset in "base:" and override some of its
// fields.
//
// It is split from package model so that the timing model, and replay which
// depends on it, carry no YAML dependency: model owns the Spec type, the
// presets and Validate; this package owns the file form only.
//
// Invariants:
//   - Parse rejects unknown fields (the error names the line) and returns
//     only validated specs.
//   - Marshal writes a document that Parse reads back to an equal Spec.
//   - Load resolves a preset name first, then a file path; a name that is
//     neither is an error listing the presets.
package specfile

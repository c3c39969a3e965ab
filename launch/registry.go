package launch

import ()

// RefInput is what a Go reference function gets: the launch spec, the
// initial contents of every buffer by name, the scalar parameter values by
// name, the variables (Spec.Vars and the inputs' scalars as INPUT.NAME) and
// the generated inputs by input name.
type RefInput struct {
	Spec    *Spec
	Buffers map[string][]byte
	Scalars map[string]float64
	Vars    map[string]float64
	Inputs  map[string]GenOutput
}

// RefFunc computes the expected contents of a checked buffer; the check
// compares them with the spec's abs/rel tolerances.
type RefFunc func(in RefInput) ([]byte, error)

// VerifyFunc checks a buffer's final contents itself (with its own
// tolerances) and returns an error describing the mismatches.
type VerifyFunc func(in RefInput, got []byte) error

// GenOutput is what an input generator makes: named buffers (device bytes)
// and named scalars.
type GenOutput struct {
	Buffers map[string][]byte
	Scalars map[string]float64
}

// GenFunc is an input generator: it builds inputs from the arguments a
// launch spec gives (inputs: [{name, generator, args}]).
type GenFunc func(args map[string]string) (GenOutput, error)

// Registry holds the Go functions a launch spec may name: references and
// verifiers for checks, generators for inputs. It is an explicit value
// passed by the caller (there is no global registry); the zero value has
// none. SampleRegistry returns the one for the bundled samples.
type Registry struct {
	Refs       map[string]RefFunc
	Verify     map[string]VerifyFunc
	Generators map[string]GenFunc
}

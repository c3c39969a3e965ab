package launch

import (
	"embed"
	"path"
)

// sampleSpecs are the ready launch specs of the embedded samples (package
// samples), one testdata/samples/NAME/launch.yaml per sample; the tests
// run each of them.
//
//go:embed testdata/samples/*/launch.yaml
var sampleSpecs embed.FS

// SampleSpec returns the launch spec of the embedded sample name (its
// inputs come from SampleRegistry's generators, so it needs no other
// file), or false when the sample has none.
func SampleSpec(name string) ([]byte, bool) {
	b, err := sampleSpecs.ReadFile(path.Join("testdata/samples", name, "launch.yaml"))
	return b, err == nil
}
